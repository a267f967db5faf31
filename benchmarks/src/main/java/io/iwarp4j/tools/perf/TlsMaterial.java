package io.iwarp4j.tools.perf;

import io.iwarp4j.verbs.TlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A private key with its certificate chain, in a PKCS12 key store, for {@code iwarp-perf --tls}
 * and the TLS tests: loaded from a file, or generated self-signed with the running JDK's
 * {@code keytool} (no third-party library; the private key never leaves a temporary file that
 * is deleted at once).
 *
 * @param keys the key store, one key entry
 * @param password the password of the store and its key entry
 */
public record TlsMaterial(KeyStore keys, char[] password) {

  /**
   * Generates an EC P-256 key and a self-signed certificate for {@code CN=name}, valid for two
   * days and naming 127.0.0.1, ::1 and localhost as subject alternative names.
   *
   * @param name the certificate's common name
   * @return the material
   * @throws IOException when keytool cannot run or fails
   * @throws GeneralSecurityException when its key store cannot be read
   */
  public static TlsMaterial generate(String name) throws IOException, GeneralSecurityException {
    return generate(name, "ip:127.0.0.1,ip:::1,dns:localhost");
  }

  /**
   * As {@link #generate(String)}, with these subject alternative names.
   *
   * @param name the certificate's common name
   * @param subjectAltNames keytool's {@code san=} list, e.g. {@code dns:example.org,ip:10.0.0.1}
   * @return the material
   * @throws IOException when keytool cannot run or fails
   * @throws GeneralSecurityException when its key store cannot be read
   */
  public static TlsMaterial generate(String name, String subjectAltNames)
      throws IOException, GeneralSecurityException {
    Path dir = Files.createTempDirectory("iwarp4j-tls");
    Path file = dir.resolve("keys.p12");
    char[] password = "iwarp4j-test".toCharArray();
    try {
      Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
      List<String> cmd = List.of(keytool.toString(), "-genkeypair", "-alias", name,
          "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name, "-validity", "2",
          "-ext", "san=" + subjectAltNames, "-storetype", "PKCS12",
          "-keystore", file.toString(), "-storepass", new String(password),
          "-keypass", new String(password));
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      try {
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
          p.destroyForcibly();
          throw new IOException("keytool failed: " + out);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted waiting for keytool", e);
      }
      return load(file, password);
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir);
    }
  }

  /**
   * Loads a PKCS12 (or JKS) key store.
   *
   * @param file the key store file
   * @param password its password, also the key entries'
   * @return the material
   * @throws IOException when the file cannot be read
   * @throws GeneralSecurityException when it is not a key store with that password
   */
  public static TlsMaterial load(Path file, char[] password)
      throws IOException, GeneralSecurityException {
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    try (InputStream in = Files.newInputStream(file)) {
      ks.load(in, password);
    }
    return new TlsMaterial(ks, password.clone());
  }

  /**
   * The certificates of this store's entries.
   *
   * @return each entry's certificate
   * @throws GeneralSecurityException when the store cannot be read
   */
  public List<Certificate> certificates() throws GeneralSecurityException {
    List<Certificate> certs = new ArrayList<>();
    for (String alias : Collections.list(keys.aliases())) {
      Certificate c = keys.getCertificate(alias);
      if (c != null) {
        certs.add(c);
      }
    }
    return certs;
  }

  /**
   * A trust store holding the certificates of {@code trusted}.
   *
   * @param trusted the material whose certificates to trust
   * @return the trust store
   * @throws GeneralSecurityException when a store cannot be read
   * @throws IOException never, in practice (an empty in-memory store)
   */
  public static KeyStore trustStore(TlsMaterial... trusted)
      throws GeneralSecurityException, IOException {
    KeyStore ts = KeyStore.getInstance("PKCS12");
    ts.load(null, null);
    int i = 0;
    for (TlsMaterial m : trusted) {
      for (Certificate c : m.certificates()) {
        ts.setCertificateEntry("trusted-" + i++, c);
      }
    }
    return ts;
  }

  /**
   * TLS settings with this material as this end's identity, trusting {@code trusted}.
   *
   * @param trusted the peers' material (its certificates) to trust
   * @return a builder, to set client authentication or the host name check on
   * @throws GeneralSecurityException when the material cannot be used
   * @throws IOException never, in practice
   */
  public TlsSettings.Builder settingsTrusting(TlsMaterial... trusted)
      throws GeneralSecurityException, IOException {
    return TlsSettings.builder(keys, password, trustStore(trusted));
  }
}
