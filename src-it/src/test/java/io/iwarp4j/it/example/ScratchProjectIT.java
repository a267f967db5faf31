package io.iwarp4j.it.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 9, acceptance 2: src-it/scratch/run-scratch.sh installs verbs-api, builds the key-value
 * example as a standalone project in a temporary directory outside the checkout, and runs its
 * server and clients on the class path and on the module path, checking every line they print.
 * Needs {@code mvn} on the PATH: skipped loudly without it, failed under CI.
 */
class ScratchProjectIT {
  private static final Path CHECKOUT = Paths.get("").toAbsolutePath().getParent();
  private static final Path EXAMPLE = CHECKOUT.resolve("docs/examples/kvstore");

  @Test
  void theExamplePomBuildsAgainstThisCheckoutsVersion() throws IOException {
    String pom = Files.readString(EXAMPLE.resolve("pom.xml"));
    Matcher m = Pattern.compile("<iwarp4j.version>([^<]+)</iwarp4j.version>").matcher(pom);
    assertTrue(m.find(), "docs/examples/kvstore/pom.xml has no <iwarp4j.version> property");
    assertEquals(System.getProperty("iwarp4j.project.version"), m.group(1),
        "docs/examples/kvstore/pom.xml: set <iwarp4j.version> to the project's version");
  }

  @Test
  void theConsumerPomBuildsAgainstThisCheckoutsVersionForJava17() throws IOException {
    String pom = Files.readString(CHECKOUT.resolve("docs/examples/consumer/pom.xml"));
    Matcher m = Pattern.compile("<iwarp4j.version>([^<]+)</iwarp4j.version>").matcher(pom);
    assertTrue(m.find(), "docs/examples/consumer/pom.xml has no <iwarp4j.version> property");
    assertEquals(System.getProperty("iwarp4j.project.version"), m.group(1),
        "docs/examples/consumer/pom.xml: set <iwarp4j.version> to the project's version");
    // A stock Maven 3.8 compiles for Java 5 without these (its default compiler plugin is 3.1).
    assertTrue(pom.contains("<maven.compiler.release>17</maven.compiler.release>"), pom);
    assertTrue(pom.contains("<artifactId>slf4j-simple</artifactId>"), pom);
  }

  @Test
  void theExampleUsesOnlyThePublicVerbsApi() throws IOException {
    Pattern allowed = Pattern.compile(
        "import (static )?(java\\.|io\\.iwarp4j\\.verbs\\.[A-Z]|io\\.iwarp4j\\.example\\.kvstore\\."
        + "|io\\.iwarp4j\\.ddp\\.mem\\.AccessFlags;).*");
    List<String> offending = new ArrayList<>();
    try (Stream<Path> files = Files.walk(EXAMPLE.resolve("src/main/java"))) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
        for (String line : Files.readAllLines(f)) {
          if (line.startsWith("import ") && !allowed.matcher(line).matches()) {
            offending.add(EXAMPLE.relativize(f) + ": " + line);
          }
        }
      }
    }
    assertEquals(List.of(), offending, "the example must stay on io.iwarp4j.verbs and the JDK");
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void aScratchProjectRunsTheExampleOnTheClassPathAndTheModulePath() throws Exception {
    requireMaven();
    // verbs-api becomes a named module in the release branch (issue 9, JPMS); until then the
    // example's module-info.java cannot compile against it.
    if (!Files.exists(CHECKOUT.resolve("verbs-api/src/main/java/module-info.java"))) {
      skipLoudly("SCRATCH PROJECT SKIPPED: verbs-api has no module-info.java yet");
    }
    Path work = Files.createTempDirectory("iwarp4j-scratch");
    ProcessBuilder pb = new ProcessBuilder("bash",
        CHECKOUT.resolve("src-it/scratch/run-scratch.sh").toString(), work.toString())
        .redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("MAVEN_REPO_LOCAL", System.getProperty("iwarp4j.maven.repo.local"));
    env.put("MAVEN_OFFLINE",
        String.valueOf(System.getProperty("iwarp4j.maven.offline", "").endsWith("=true")));
    Path log = work.resolve("run-scratch.log");
    pb.redirectOutput(log.toFile());
    Process p = pb.start();
    if (!p.waitFor(7, TimeUnit.MINUTES)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly); // mvn, java: not orphaned
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      fail("run-scratch.sh did not finish within 7 minutes:\n" + Files.readString(log));
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("[scratch] class-path: OK"), out);
    assertTrue(out.contains("[scratch] module-path: OK"), out);
    deleteTree(work); // kept when the run fails, for its logs
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }

  private static void requireMaven() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Paths.get(dir, "mvn"))) {
        return;
      }
    }
    String msg = "SCRATCH PROJECT SKIPPED: no mvn on the PATH";
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(msg + " (CI builds with Maven, so it has one)");
    }
    skipLoudly(msg);
  }

  private static void skipLoudly(String msg) {
    System.err.println("**********************************************************");
    System.err.println(msg);
    System.err.println("**********************************************************");
    assumeTrue(false, msg);
  }
}
