package io.iwarp4j.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * JDK 24+: {@code java -jar iwarp4j-benchmarks.jar …} without flags would run Netty without
 * {@code sun.misc.Unsafe} (its slow path; Netty turns it off by default on JDK 25+) and print
 * the JDK's warnings. No manifest attribute allows {@code sun.misc.Unsafe} memory access
 * (the manifest's {@code Enable-Native-Access} covers only the native-access warning), so the
 * jar starts itself once more, in a child JVM with {@link #FLAGS} and this JVM's own options,
 * and exits with the child's status. Skipped when the flag is already given (benchmarks/bin's
 * scripts give it), under a Java agent or debugger, and with
 * {@code IWARP4J_NO_RELAUNCH=1}.
 */
final class Relauncher {
  /** The flags the child JVM gets. */
  static final List<String> FLAGS = List.of("--sun-misc-unsafe-memory-access=allow",
      "--enable-native-access=ALL-UNNAMED");
  /** First JDK feature release that denies, or warns about, {@code sun.misc.Unsafe}. */
  static final int FIRST_JDK = 24;

  private Relauncher() {
  }

  /**
   * The child's command line, or null when this JVM should run the command itself.
   *
   * @param jdkFeature the running JDK's feature release
   * @param jvmArgs this JVM's options
   * @param noRelaunch the value of {@code IWARP4J_NO_RELAUNCH}, or null
   * @param javaHome {@code java.home}
   * @param classPath {@code java.class.path}
   * @param args the command's arguments
   * @return the command line, or null
   */
  static List<String> command(int jdkFeature, List<String> jvmArgs, String noRelaunch,
      String javaHome, String classPath, String[] args) {
    if (jdkFeature < FIRST_JDK || (noRelaunch != null && !noRelaunch.isEmpty())) {
      return null;
    }
    for (String a : jvmArgs) {
      if (a.startsWith("--sun-misc-unsafe-memory-access") || a.startsWith("-agentlib")
          || a.startsWith("-javaagent") || a.startsWith("-agentpath")) {
        return null;
      }
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(javaHome, "bin", "java").toString());
    cmd.addAll(FLAGS);
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add(Main.class.getName());
    cmd.addAll(List.of(args));
    return cmd;
  }

  /**
   * Runs the command in a child JVM if {@link #command} says so, and then exits with its status;
   * returns when this JVM should run the command itself.
   *
   * @param args the command's arguments
   */
  static void relaunchIfNeeded(String[] args) {
    List<String> cmd = command(Runtime.version().feature(),
        ManagementFactory.getRuntimeMXBean().getInputArguments(),
        System.getenv("IWARP4J_NO_RELAUNCH"), System.getProperty("java.home"),
        System.getProperty("java.class.path"), args);
    if (cmd == null) {
      return;
    }
    int status;
    try {
      Process child = new ProcessBuilder(cmd).inheritIO().start();
      Runtime.getRuntime().addShutdownHook(new Thread(child::destroy, "relaunch-stop"));
      status = child.waitFor();
    } catch (java.io.IOException e) {
      return; // cannot start a JVM: run here, slower
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      status = 130;
    }
    System.exit(status);
  }
}
