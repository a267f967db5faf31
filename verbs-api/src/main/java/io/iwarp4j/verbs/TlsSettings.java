package io.iwarp4j.verbs;

import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS 1.3 under MPA, between iwarp4j peers only: an <b>iwarp4j extension</b>, not part of
 * iWARP (RFC 5040/5041/5044 rely on IPsec, RFC 5042) and not interoperable with Linux siw or
 * iWARP RNICs, which close a connection that starts with a TLS ClientHello.
 *
 * <p>Given to a listener ({@link ListenParams.Builder#tls(TlsSettings)}) or a connect
 * ({@link ConnectParams.Builder#tls(TlsSettings)}), it puts the JDK's TLS engine (through Netty's
 * {@code SslHandler}) right above TCP: the TLS handshake completes before the MPA Request leaves
 * (it is held until then) and before the Responder reads it; then MPA, DDP and RDMAP run
 * unchanged inside the TLS stream. The handshake counts against the MPA startup timeout of its
 * side (the Initiator's reply timeout, the Responder's request timeout). The protocol is fixed
 * to TLSv1.3. The server always authenticates itself; with {@link Builder#requireClientAuth}
 * the client must present a certificate the server trusts (mutual authentication). Connections
 * without TLS pay nothing for it: their pipeline is the one they have without this class.
 *
 * <p>Immutable; build with {@link #builder(SSLContext)} or
 * {@link #builder(KeyStore, char[], KeyStore)}.
 */
public final class TlsSettings {
  /** The only protocol offered and accepted. */
  public static final String PROTOCOL = "TLSv1.3";

  private final SSLContext context;
  private final boolean requireClientAuth;
  private final boolean verifyHostname;

  private TlsSettings(Builder b) {
    this.context = b.context;
    this.requireClientAuth = b.requireClientAuth;
    this.verifyHostname = b.verifyHostname;
  }

  /**
   * Starts building from an {@link SSLContext} that supports TLSv1.3 (its key managers give
   * this end's certificate, its trust managers decide which peers are trusted).
   *
   * @param context the context
   * @return a builder
   * @throws IllegalArgumentException when the context does not support TLSv1.3
   */
  public static Builder builder(SSLContext context) {
    Objects.requireNonNull(context, "context");
    if (!Arrays.asList(context.getSupportedSSLParameters().getProtocols()).contains(PROTOCOL)) {
      throw new IllegalArgumentException("the SSLContext (" + context.getProtocol() + ", "
          + context.getProvider().getName() + ") does not support " + PROTOCOL);
    }
    return new Builder(context);
  }

  /**
   * Starts building from key and trust material: a TLSv1.3 {@link SSLContext} of the JDK's
   * provider with the default key and trust manager algorithms.
   *
   * @param keys this end's private key and certificate chain (a listener needs one; a connect
   *     needs one only toward a listener that requires client authentication), or null for none
   * @param password the password of {@code keys}' key entries (ignored without keys)
   * @param trusted the certificates of the peers (or of their issuers) to trust, or null for
   *     the JDK's default trust store
   * @return a builder
   * @throws GeneralSecurityException when the key or trust material cannot be used
   */
  public static Builder builder(KeyStore keys, char[] password, KeyStore trusted)
      throws GeneralSecurityException {
    KeyManagerFactory kmf = null;
    if (keys != null) {
      kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, password);
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trusted);
    SSLContext context = SSLContext.getInstance(PROTOCOL);
    context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return builder(context);
  }

  /**
   * The context engines are made from.
   *
   * @return the context
   */
  public SSLContext context() {
    return context;
  }

  /**
   * Whether a listener with these settings refuses clients without a trusted certificate.
   *
   * @return true for mutual authentication
   */
  public boolean requireClientAuth() {
    return requireClientAuth;
  }

  /**
   * Whether a connect with these settings checks that the server's certificate names the
   * address connected to (a DNS or IP subject alternative name, RFC 2818 rules).
   *
   * @return true to check (the default)
   */
  public boolean verifyHostname() {
    return verifyHostname;
  }

  /** A new engine for one connection; {@code peer} is the address connected to (client). */
  SSLEngine newEngine(boolean client, InetSocketAddress peer) {
    SSLEngine engine = client && peer != null
        ? context.createSSLEngine(peer.getHostString(), peer.getPort())
        : context.createSSLEngine();
    engine.setUseClientMode(client);
    SSLParameters p = engine.getSSLParameters();
    p.setProtocols(new String[] {PROTOCOL});
    if (client) {
      if (verifyHostname) {
        p.setEndpointIdentificationAlgorithm("HTTPS");
      }
    } else {
      p.setNeedClientAuth(requireClientAuth);
    }
    engine.setSSLParameters(p);
    return engine;
  }

  /** The TLS handshake's bound: the MPA startup timeout of its side. */
  static long handshakeTimeoutMillis(Duration mpaTimeout) {
    return Math.max(1, mpaTimeout.toMillis());
  }

  @Override
  public String toString() {
    return "TlsSettings{" + PROTOCOL + ", " + context.getProvider().getName()
        + (requireClientAuth ? ", requireClientAuth" : "")
        + (verifyHostname ? "" : ", no hostname check") + '}';
  }

  /** Builder. */
  public static final class Builder {
    private final SSLContext context;
    private boolean requireClientAuth;
    private boolean verifyHostname = true;

    private Builder(SSLContext context) {
      this.context = context;
    }

    /**
     * On a listener: requires every client to present a certificate its trust managers accept
     * (mutual authentication); a client without one, or with an untrusted one, fails the
     * handshake and is closed. Default false (server authentication only). Ignored on a
     * connect.
     *
     * @param require whether to require client certificates
     * @return this builder
     */
    public Builder requireClientAuth(boolean require) {
      this.requireClientAuth = require;
      return this;
    }

    /**
     * On a connect: whether the server's certificate must name the address connected to
     * ({@code InetSocketAddress.getHostString()}: the host name given, or the IP address),
     * checked by the JDK as HTTPS does (RFC 2818). Default true; false accepts any certificate
     * the trust managers accept, whatever it names. Ignored on a listener.
     *
     * @param verify whether to check the name
     * @return this builder
     */
    public Builder verifyHostname(boolean verify) {
      this.verifyHostname = verify;
      return this;
    }

    /**
     * Builds the settings.
     *
     * @return the settings
     */
    public TlsSettings build() {
      return new TlsSettings(this);
    }
  }
}
