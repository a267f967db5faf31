package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.RemoteBuffer;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The verbs API against a peer in another JVM ({@link OpsItPeerServer}, started with
 * ProcessBuilder), over TCP on 127.0.0.1, exchanging buffers the way rping does: each side
 * Sends the other its 16-octet {@code {stag, addr, len}} advertisement
 * ({@link RemoteBuffer#toBytes()}); the client RDMA-Reads the server's region and checks it,
 * RDMA-Writes its own pattern over it and Sends "done" with the CRC32C; the server checks its
 * region, RDMA-Writes a pattern into the client's buffer and Sends its verdict. Proves: two
 * processes that share nothing but the seed interoperate over the wire for Send, Write and
 * Read, and the advertisement format round-trips. The server is killed in any case.
 */
@Timeout(120)
class SeparateProcessPeerIT {
  private static final long SEED = Long.getLong("it.seed", 0x5E9A_7A7EL);
  private static final int SIZE = 1 << 20;
  private static final int CLIENT_SIZE = 65536;
  private static final long WAIT = 30;

  @Test
  void rpingStyleExchangeWithAServerInAnotherJvm() throws Exception {
    System.out.println("SeparateProcessPeerIT seed=0x" + Long.toHexString(SEED)
        + " (-Dit.seed to repeat)");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    String leak = System.getProperty("io.netty.leakDetection.level");
    if (leak != null) {
      cmd.add("-Dio.netty.leakDetection.level=" + leak);
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(OpsItPeerServer.class.getName());
    cmd.add(Long.toString(SEED));
    cmd.add(Integer.toString(SIZE));
    cmd.add(Integer.toString(CLIENT_SIZE));
    Process server = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    ProcessOutput out = ProcessOutput.follow(server, "peer-server-output");
    try (OpsItPeer peer = new OpsItPeer(1, 64)) {
      String portLine = out.await(l -> l.startsWith("PORT "), "PORT line", WAIT,
          TimeUnit.SECONDS);
      int port = Integer.parseInt(portLine.substring(5).trim());
      MemoryRegion sink = peer.region(SIZE);
      MemoryRegion src = peer.region(SIZE);
      src.buffer().setBytes(0, OpsItPeerServer.pattern(SEED + 1, SIZE));
      MemoryRegion mine = peer.region(CLIENT_SIZE);
      MemoryRegion msgs = peer.region(256);
      QueuePair qp = peer.newQp(8, 8, 1);
      // Posted in INIT: in place before the server can answer.
      qp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(msgs, 0, 16));
      RdmaConnection conn = peer.device.connect(qp, new InetSocketAddress("127.0.0.1", port),
          ConnectParams.defaults()).get(WAIT, TimeUnit.SECONDS);
      // Client-server MPA: the initiator sends first (RFC 5044), its advertisement.
      msgs.buffer().setBytes(128, mine.remote().toBytes());
      qp.postSend(new SendWorkRequest(1).wrId(10).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED).addSge(msgs, 128, 16));
      Map<Long, WorkCompletion> wcs = byId(peer.take(2, WAIT));
      assertEquals(16, wcs.get(1L).byteLen());
      RemoteBuffer remote = RemoteBuffer.fromBytes(OpsItPeer.bytes(msgs.buffer(), 0, 16), 0);
      assertEquals(SIZE, remote.length(), remote.toString());

      // Read the server's region: its seeded pattern.
      qp.postSend(new SendWorkRequest(1).wrId(11).opcode(WorkRequestOpcode.RDMA_READ)
          .flags(SendFlags.SIGNALED).remote(remote.stag(), remote.address())
          .addSge(sink, 0, SIZE));
      WorkCompletion read = peer.take(1, WAIT).get(0);
      assertEquals(WcStatus.SUCCESS, read.status(), read.toString());
      assertEquals(WcOpcode.RDMA_READ, read.opcode());
      assertEquals(SIZE, read.byteLen());
      assertArrayEquals(OpsItPeerServer.pattern(SEED, SIZE),
          OpsItPeer.bytes(sink.buffer(), 0, SIZE), "the server's region as read");

      // Write ours over it, then say "done" with the CRC; the answer's receive goes first
      // (this QP hands its receives over before it transmits the Send).
      qp.postSend(new SendWorkRequest(1).wrId(12).opcode(WorkRequestOpcode.RDMA_WRITE)
          .flags(SendFlags.SIGNALED).remote(remote.stag(), remote.address())
          .addSge(src, 0, SIZE));
      qp.postRecv(new RecvWorkRequest(1).wrId(2).addSge(msgs, 64, 16));
      msgs.buffer().setLong(192, OpsItPeer.crc(src.buffer(), 0, SIZE)).setInt(200, SIZE);
      qp.postSend(new SendWorkRequest(1).wrId(13).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED).addSge(msgs, 192, 12));
      wcs = byId(peer.take(3, WAIT));
      for (WorkCompletion wc : wcs.values()) {
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
      }
      assertEquals(Map.of(12L, WcOpcode.RDMA_WRITE, 13L, WcOpcode.SEND, 2L, WcOpcode.RECV),
          wcs.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
              e -> e.getValue().opcode())));
      assertEquals(8, wcs.get(2L).byteLen());
      assertEquals(1, msgs.buffer().getLong(64), () -> "the server's verdict; output: " + out);
      assertArrayEquals(OpsItPeerServer.pattern(SEED + 2, CLIENT_SIZE),
          OpsItPeer.bytes(mine.buffer(), 0, CLIENT_SIZE), "the server's Write into our buffer");

      conn.disconnect().get(WAIT, TimeUnit.SECONDS);
      assertTrue(server.waitFor(WAIT, TimeUnit.SECONDS), () -> "the server did not exit: " + out);
      out.awaitEnd(WAIT, TimeUnit.SECONDS);
      assertTrue(out.contains("DONE ok"), () -> "server output: " + out);
      assertEquals(0, server.exitValue(), () -> "server output: " + out);
    } finally {
      server.destroyForcibly();
      server.waitFor(WAIT, TimeUnit.SECONDS);
    }
  }

  private static Map<Long, WorkCompletion> byId(List<WorkCompletion> wcs) {
    Map<Long, WorkCompletion> m = new java.util.HashMap<>();
    for (WorkCompletion wc : wcs) {
      assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
      assertTrue(m.put(wc.wrId(), wc) == null, "completed twice: " + wc);
    }
    return m;
  }
}
