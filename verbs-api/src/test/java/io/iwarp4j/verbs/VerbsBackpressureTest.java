package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With small write buffer water marks, a burst of large Writes: the queue pair stops issuing
 * while the channel is unwritable (what waits for the socket stays near the high water mark plus
 * one message, instead of the whole burst) and resumes when it is writable again (everything
 * completes, every octet arrives).
 */
@Timeout(30)
class VerbsBackpressureTest {
  private static final int WRITES = 48;
  private static final int SIZE = 32 * 1024;
  private static final int HIGH = 8 * 1024;

  @Test
  void unwritableChannelsHoldTheSendQueueAndWritabilityResumesIt() throws Exception {
    DeviceConfig config = DeviceConfig.builder().eventLoopThreads(1)
        .writeBufferWaterMark(4 * 1024, HIGH).build();
    try (Peer server = new Peer(config); Peer client = new Peer(config)) {
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      RdmaListener listener = server.device.listen(new InetSocketAddress("127.0.0.1", 0),
          requests::add);
      MemoryRegion target = server.region(WRITES * SIZE);
      MemoryRegion source = client.region(WRITES * SIZE);
      byte[] pattern = new byte[WRITES * SIZE];
      new java.util.Random(42).nextBytes(pattern);
      source.buffer().setBytes(0, pattern);
      QueuePair cqp = client.device.createQueuePair(client.pd,
          QueuePairConfig.builder(client.cq, client.cq).maxSendWr(WRITES).build());
      CompletableFuture<RdmaConnection> cf = client.device.connect(cqp, listener.localAddress());
      QueuePair sqp = server.newQp();
      requests.poll(Peer.TIMEOUT_SECONDS, TimeUnit.SECONDS).accept(sqp);
      RdmaConnection connection = cf.get(Peer.TIMEOUT_SECONDS, TimeUnit.SECONDS);

      // Measure, on the event loop, what waits for the socket at each write.
      AtomicLong maxPending = new AtomicLong();
      Channel channel = connection.channel();
      channel.eventLoop().submit(() -> channel.pipeline().addFirst(
          new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
              ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
              long pending = (out == null ? 0 : out.totalPendingWriteBytes())
                  + (msg instanceof ByteBuf b ? b.readableBytes() : 0);
              maxPending.accumulateAndGet(pending, Math::max);
              ctx.write(msg, promise);
            }
          })).get(Peer.TIMEOUT_SECONDS, TimeUnit.SECONDS);

      for (int i = 0; i < WRITES; i++) {
        cqp.postSend(new SendWorkRequest(1).wrId(i).opcode(WorkRequestOpcode.RDMA_WRITE)
            .flags(SendFlags.SIGNALED).remote(target.stag(), target.address() + (long) i * SIZE)
            .addSge(source, (long) i * SIZE, SIZE));
      }
      for (int i = 0; i < WRITES; i++) {
        WorkCompletion wc = client.nextCompletion();
        assertEquals(i, wc.wrId());
        assertTrue(wc.isSuccess(), wc.toString());
      }
      // A Send behind the Writes: once it is delivered, every Write was placed.
      MemoryRegion box = server.region(8);
      sqp.postRecv(new RecvWorkRequest(1).wrId(99).addSge(box, 0, 8));
      cqp.postSend(new SendWorkRequest(1).wrId(100).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED).addSge(source, 0, 8));
      assertEquals(100, client.nextCompletion().wrId());
      assertEquals(99, server.nextCompletion().wrId());
      byte[] placed = new byte[WRITES * SIZE];
      target.buffer().getBytes(0, placed);
      assertArrayEquals(pattern, placed);
      long bound = HIGH + 2L * SIZE;
      assertTrue(maxPending.get() <= bound, "up to " + maxPending.get() + " octets waited for the"
          + " socket; with back-pressure at most about " + bound + " (the burst was "
          + (long) WRITES * SIZE + ")");
    }
  }
}
