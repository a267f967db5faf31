package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.LocalBuffer;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.MpaSettings;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.RemoteBuffer;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Inline sends ({@link SendFlags#INLINE}, {@code IBV_SEND_INLINE}) end to end between two devices
 * over TCP on 127.0.0.1: Sends and RDMA Writes whose source is overwritten as soon as postSend
 * returns deliver the octets of post time; a Send from plain heap memory that no protection
 * domain knows is delivered too. Without Markers the framer copies the inline payload into the
 * outgoing batch; with Markers it sends a slice of the send queue slot's inline area, so both
 * paths run.
 */
@Timeout(60)
class InlineSendsIT {
  private static final long WAIT = 30;
  private static final int INLINE = DeviceConfig.DEFAULT_INLINE_DATA;

  /** Plain heap memory: not registered, its STag made up (inline data needs none). */
  private record HeapBuffer(ByteBuf buffer) implements LocalBuffer {
    @Override
    public long length() {
      return buffer.capacity();
    }

    @Override
    public int stag() {
      return 0x5eed0000;
    }
  }

  private static byte[] pattern(int length, int seed) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) (seed * 17 + i * 29);
    }
    return b;
  }

  private static byte[] read(MemoryRegion mr, int offset, int length) {
    byte[] b = new byte[length];
    mr.buffer().getBytes(offset, b);
    return b;
  }

  @ParameterizedTest(name = "markers={0}")
  @ValueSource(booleans = {false, true})
  void inlineSendsAndWritesDeliverTheOctetsOfPostTime(boolean markers) throws Exception {
    DeviceConfig config = DeviceConfig.builder().eventLoopThreads(1)
        .mpaSettings(MpaSettings.defaults().toBuilder().markers(markers).build()).build();
    try (OpsItPeer client = new OpsItPeer(config, 256);
        OpsItPeer server = new OpsItPeer(config, 256)) {
      MemoryRegion target = server.region(4096);
      MemoryRegion recv = server.region(4096);
      MemoryRegion src = client.region(4096);
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      RdmaListener listener = server.device.listen(new InetSocketAddress("127.0.0.1", 0),
          requests::add);
      QueuePair cqp = client.newQp(64, 16, 2);
      QueuePair sqp = server.newQp(16, 64, 2);
      assertEquals(INLINE, cqp.capabilities().maxInlineData());
      int rounds = 20;
      for (int i = 0; i < rounds + 1; i++) {
        sqp.postRecv(new RecvWorkRequest(1).wrId(1000 + i).addSge(recv, 128L * i, 128));
      }
      CompletableFuture<RdmaConnection> cf = client.device.connect(cqp,
          listener.localAddress());
      ConnectRequest request = requests.poll(WAIT, TimeUnit.SECONDS);
      assertNotNull(request, "no connect request");
      request.accept(sqp, AcceptParams.builder().privateData(target.remote().toBytes()).build());
      RdmaConnection connection = cf.get(WAIT, TimeUnit.SECONDS);
      RemoteBuffer remote = RemoteBuffer.fromBytes(connection.peerPrivateData(), 0);
      listener.close();
      assertEquals(markers, connection.mpaInfo().markersOut(), "Markers toward the server");

      SendWorkRequest wr = new SendWorkRequest(2);
      for (int i = 0; i < rounds; i++) {
        // A Write of 48 octets to its own place in the target, gathered from two SGEs ...
        byte[] w = pattern(48, i);
        src.buffer().setBytes(0, w, 0, 20).setBytes(1000, w, 20, 28);
        cqp.postSend(wr.reset().wrId(i * 2).opcode(WorkRequestOpcode.RDMA_WRITE)
            .flags(SendFlags.INLINE | SendFlags.SIGNALED)
            .remote(remote.stag(), remote.address() + 64L * i)
            .addSge(src, 0, 20).addSge(src, 1000, 28));
        src.buffer().setZero(0, 20).setZero(1000, 28); // reused at once
        // ... and a Send of the full inline limit, whose source is overwritten at once.
        byte[] s = pattern(INLINE, 100 + i);
        src.buffer().setBytes(2048, s);
        cqp.postSend(wr.reset().wrId(i * 2 + 1).opcode(WorkRequestOpcode.SEND)
            .flags(SendFlags.INLINE | SendFlags.SIGNALED).addSge(src, 2048, INLINE));
        src.buffer().setBytes(2048, pattern(INLINE, 200 + i));
      }
      // A Send from heap memory no protection domain knows.
      ByteBuf heap = Unpooled.wrappedBuffer(pattern(INLINE, 7));
      cqp.postSend(wr.reset().wrId(999).opcode(WorkRequestOpcode.SEND_WITH_SOLICITED)
          .flags(SendFlags.INLINE | SendFlags.SIGNALED).addSge(new HeapBuffer(heap), 0, 33));
      heap.setZero(0, 33);

      List<WorkCompletion> sent = client.take(2 * rounds + 1, WAIT);
      for (int i = 0; i < sent.size(); i++) {
        WorkCompletion wc = sent.get(i);
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(i < 2 * rounds ? i : 999, wc.wrId(), "completion order");
        assertEquals(i < 2 * rounds && i % 2 == 0 ? WcOpcode.RDMA_WRITE : WcOpcode.SEND,
            wc.opcode());
      }
      List<WorkCompletion> received = server.take(rounds + 1, WAIT);
      for (int i = 0; i < rounds; i++) {
        WorkCompletion wc = received.get(i);
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(1000 + i, wc.wrId());
        assertEquals(INLINE, wc.byteLen());
        assertArrayEquals(pattern(INLINE, 100 + i), read(recv, 128 * i, INLINE), "Send " + i);
        // The Send arrived after the Write before it was placed (RFC 5040 §5.5).
        assertArrayEquals(pattern(48, i), read(target, 64 * i, 48), "Write " + i);
      }
      WorkCompletion last = received.get(rounds);
      assertEquals(33, last.byteLen());
      assertEquals(true, last.solicited());
      assertArrayEquals(java.util.Arrays.copyOf(pattern(INLINE, 7), 33),
          read(recv, 128 * rounds, 33), "the Send from heap memory");
    }
  }
}
