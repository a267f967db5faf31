package io.iwarp4j.it.netem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.iwarp4j.it.ProcessOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * iwarp4j over an impaired network: two network namespaces this test creates, joined by a veth
 * pair, with {@code tc netem} adding delay with jitter, loss and reordering on both ends (where
 * the kernel lacks netem, a small-queue token bucket that drops bursts instead, announced loudly). A
 * {@link NetemPeer} server runs in one namespace and a client in the other, each in its own JVM
 * ({@code ip netns exec <ns> java ...}); they move {@value NetemPeer#SIZE} octets by RDMA Read,
 * the same by RDMA Write, and {@value NetemPeer#SENDS} Sends, all checked byte for byte
 * (CRC32C and array compare). TCP retransmits and reorders beneath MPA; iwarp4j must only be
 * slower. The namespaces are deleted in any case.
 *
 * <p>Needs root and iproute2 (and the netem or tbf qdisc): skipped with a message when they are missing,
 * failed when the {@code CI} environment variable is set.
 */
@Timeout(180)
class NetemIT {
  /** Applied to both veth ends: each direction sees it once. */
  static final String NETEM = System.getProperty("netem.spec",
      "netem delay 4ms 2ms distribution normal loss 1% reorder 5% 50%");
  /**
   * Where the kernel has no netem qdisc (some VM kernels, this project's CI machine among them):
   * a token bucket at 100 Mbit/s with a queue of a few 64 KB GSO packets, so bursts are dropped and
   * TCP has to retransmit. No delay or reordering then; the test says so.
   */
  static final String FALLBACK = System.getProperty("netem.fallback",
      "tbf rate 100mbit burst 64kb limit 96kb");
  /**
   * With the fallback, each end also drops this share of its outgoing TCP packets at random
   * ({@code iptables -m statistic --mode random}; netfilter is built into kernels that lack
   * netem, the {@code iptables} tool may not be installed): real random loss, not only bursts.
   */
  static final String FALLBACK_LOSS = System.getProperty("netem.fallbackLoss", "0.01");
  private static final long WAIT = 150;

  @Test
  void readsWritesAndSendsStayCorrectUnderLossReorderingAndDelay() throws Exception {
    String tag = Long.toHexString(ProcessHandle.current().pid() & 0xFFFF)
        + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100, 0x1000));
    String nsA = "iw4j-a-" + tag;
    String nsB = "iw4j-b-" + tag;
    String vethA = "iw4ja" + tag;
    String vethB = "iw4jb" + tag;
    int net = ThreadLocalRandom.current().nextInt(1, 250);
    String ipA = "10.254." + net + ".1";
    String ipB = "10.254." + net + ".2";
    List<Process> peers = new ArrayList<>();
    boolean randomLoss = false;
    try {
      requireTool(run("ip", "netns", "add", nsA) == 0, "cannot create network namespaces"
          + " (needs root and iproute2)");
      requireTool(run("ip", "netns", "add", nsB) == 0, "cannot create a second namespace");
      requireTool(run("ip", "link", "add", vethA, "type", "veth", "peer", "name", vethB) == 0,
          "cannot create a veth pair");
      must("ip", "link", "set", vethA, "netns", nsA);
      must("ip", "link", "set", vethB, "netns", nsB);
      must("ip", "-n", nsA, "addr", "add", ipA + "/30", "dev", vethA);
      must("ip", "-n", nsB, "addr", "add", ipB + "/30", "dev", vethB);
      must("ip", "-n", nsA, "link", "set", vethA, "up");
      must("ip", "-n", nsB, "link", "set", vethB, "up");
      must("ip", "-n", nsA, "link", "set", "lo", "up");
      must("ip", "-n", nsB, "link", "set", "lo", "up");
      String spec = NETEM;
      if (!qdisc(nsA, vethA, spec)) {
        System.out.println("NetemIT: WARNING the netem qdisc is not available in this kernel;"
            + " impairing with '" + FALLBACK + "' instead (packet loss only: no delay, no"
            + " reordering)");
        spec = FALLBACK;
        requireTool(qdisc(nsA, vethA, spec), "neither netem nor tbf qdiscs are available");
        randomLoss = randomLoss(nsA, vethA) && randomLoss(nsB, vethB);
        System.out.println(randomLoss
            ? "NetemIT: plus random loss of " + FALLBACK_LOSS + " of each end's TCP packets"
                + " (iptables statistic)"
            : "NetemIT: WARNING no random loss (iptables with the statistic match unavailable):"
                + " only the token bucket's burst drops");
      }
      requireTool(qdisc(nsB, vethB, spec), "cannot add the qdisc on the second end");
      System.out.println("NetemIT: " + nsA + " (" + ipA + ") <-> " + nsB + " (" + ipB + "), '"
          + spec + "' on both ends");

      long seed = ThreadLocalRandom.current().nextLong();
      long start = System.nanoTime();
      Peer server = start(peers, nsA, "server", ipA, Long.toString(seed));
      String portLine = server.await("PORT ");
      Peer client = start(peers, nsB, "client", ipA, portLine.substring(5).trim(),
          Long.toString(seed));
      String clientDone = client.await("DONE ");
      String serverDone = server.await("DONE ");
      double secs = (System.nanoTime() - start) / 1e9;
      System.out.printf("NetemIT: %d octets read, %d written, %d sent in %.1f s%n",
          NetemPeer.SIZE, NetemPeer.SIZE, NetemPeer.SENDS * NetemPeer.SEND_SIZE, secs);
      assertEquals("DONE ok", clientDone, () -> "client: " + client.output);
      assertEquals("DONE ok", serverDone, () -> "server: " + server.output);
      assertTrue(client.process.waitFor(WAIT, TimeUnit.SECONDS), "client did not exit");
      assertTrue(server.process.waitFor(WAIT, TimeUnit.SECONDS), "server did not exit");
      assertEquals(0, client.process.exitValue(), () -> "client: " + client.output);
      assertEquals(0, server.process.exitValue(), () -> "server: " + server.output);
      System.out.println("NetemIT qdisc stats, server end: " + output("ip", "netns", "exec", nsA,
          "tc", "-s", "qdisc", "show", "dev", vethA));
      System.out.println("NetemIT qdisc stats, client end: " + output("ip", "netns", "exec", nsB,
          "tc", "-s", "qdisc", "show", "dev", vethB));
      if (randomLoss) {
        System.out.println("NetemIT random drops, server end: " + output("ip", "netns", "exec",
            nsA, "iptables", "-L", "OUTPUT", "-v", "-n"));
        System.out.println("NetemIT random drops, client end: " + output("ip", "netns", "exec",
            nsB, "iptables", "-L", "OUTPUT", "-v", "-n"));
      }
    } finally {
      for (Process p : peers) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
      // Deleting a namespace deletes the veth end inside it (and so the pair).
      run("ip", "netns", "del", nsA);
      run("ip", "netns", "del", nsB);
    }
  }

  /** Drops {@link #FALLBACK_LOSS} of the TCP packets leaving {@code dev}; false if impossible. */
  private static boolean randomLoss(String ns, String dev) throws InterruptedException {
    return run("ip", "netns", "exec", ns, "iptables", "-A", "OUTPUT", "-o", dev, "-p", "tcp",
        "-m", "statistic", "--mode", "random", "--probability", FALLBACK_LOSS, "-j", "DROP") == 0;
  }

  private static boolean qdisc(String ns, String dev, String spec) throws InterruptedException {
    List<String> tc = new ArrayList<>(List.of("ip", "netns", "exec", ns, "tc", "qdisc", "add",
        "dev", dev, "root"));
    tc.addAll(List.of(spec.split(" ")));
    return run(tc.toArray(String[]::new)) == 0;
  }

  private static void requireTool(boolean ok, String what) {
    if (!ok) {
      if (System.getenv("CI") != null) {
        fail(what + ": CI must have root, iproute2 and sch_netem (see .ci/run)");
      }
      assumeTrue(false, "NetemIT SKIPPED: " + what + "; run as root with iproute2 and the"
          + " netem qdisc to test impaired networks");
    }
  }

  private static int run(String... cmd) throws InterruptedException {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return -1;
      }
      if (p.exitValue() != 0) {
        System.out.println("NetemIT: " + String.join(" ", cmd) + " -> " + p.exitValue() + ": "
            + out.trim());
      }
      return p.exitValue();
    } catch (IOException e) {
      System.out.println("NetemIT: " + String.join(" ", cmd) + ": " + e);
      return -1;
    }
  }

  private static String output(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(30, TimeUnit.SECONDS);
    return out.trim().replace("\n", " | ");
  }

  private static void must(String... cmd) throws InterruptedException {
    assertEquals(0, run(cmd), String.join(" ", cmd));
  }

  /** A peer JVM and its output lines. */
  private static final class Peer {
    final Process process;
    final ProcessOutput output;

    Peer(Process process, String name) {
      this.process = process;
      this.output = ProcessOutput.follow(process, "netem-" + name,
          line -> System.out.println("NetemIT " + name + ": " + line));
    }

    String await(String prefix) throws InterruptedException {
      return output.await(l -> l.startsWith(prefix), "'" + prefix + "' line", WAIT,
          TimeUnit.SECONDS);
    }
  }

  private static Peer start(List<Process> peers, String ns, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns,
        Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    String leak = System.getProperty("io.netty.leakDetection.level");
    if (leak != null) {
      cmd.add("-Dio.netty.leakDetection.level=" + leak);
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(NetemPeer.class.getName());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    peers.add(p);
    return new Peer(p, args[0]);
  }
}
