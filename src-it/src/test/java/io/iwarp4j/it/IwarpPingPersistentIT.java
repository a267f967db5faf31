package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.tools.ping.IwarpPing;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code iwarp-ping -s -P} serves connections concurrently, as rdma-core's {@code rping -P}: a
 * client that completes MPA and then goes silent holds up nobody else. Before, the server
 * served one connection at a time, so every other client waited for the silent one's
 * {@code --timeout} and its own connect timed out.
 */
@Timeout(120)
class IwarpPingPersistentIT {
  private static final int CLIENTS = 3;

  @Test
  void aSilentClientDoesNotBlockTheOthers() throws Exception {
    ByteArrayOutputStream serr = new ByteArrayOutputStream();
    CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();
    String port;
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress())) {
      port = Integer.toString(probe.getLocalPort());
    }
    Thread server = new Thread(() -> IwarpPing.run(new String[] {"-s", "-P", "-a", "127.0.0.1",
        "-p", port, "--timeout=60"}, new PrintStream(OutputStream.nullOutputStream()),
        new PrintStream(serr, true, StandardCharsets.UTF_8), listening::complete),
        "iwarp-ping-server");
    server.setDaemon(true);
    server.start();
    InetSocketAddress address = listening.get(30, TimeUnit.SECONDS);
    try (RdmaDevice silent = RdmaDevice.open()) {
      // Completes MPA, then sends nothing: the server waits for its start buffer.
      CompletionQueue cq = silent.createCompletionQueue(16);
      QueuePair qp = silent.createQueuePair(silent.allocateProtectionDomain(),
          QueuePairConfig.builder(cq, cq).build());
      silent.connect(qp, address).get(30, TimeUnit.SECONDS);

      List<CompletableFuture<String>> clients = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        clients.add(CompletableFuture.supplyAsync(() -> {
          ByteArrayOutputStream cerr = new ByteArrayOutputStream();
          int rc = IwarpPing.run(new String[] {"-c", "-a", "127.0.0.1", "-p", port, "-C", "10",
              "-V", "--timeout=10"}, new PrintStream(OutputStream.nullOutputStream()),
              new PrintStream(cerr, true, StandardCharsets.UTF_8), a -> { });
          return rc + " " + cerr.toString(StandardCharsets.UTF_8);
        }));
      }
      for (CompletableFuture<String> c : clients) {
        String result = c.get(60, TimeUnit.SECONDS);
        assertTrue(result.startsWith("0 "), "a client behind the silent one: status and stderr "
            + result + "; server stderr: " + serr);
      }
    } finally {
      server.interrupt();
      server.join(TimeUnit.SECONDS.toMillis(30));
    }
  }
}
