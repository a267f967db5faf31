package io.iwarp4j.ddp;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.RegionOptions;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.mpa.FpduDeframer;
import io.iwarp4j.mpa.FpduFramer;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.testing.AllocationFreedom;
import io.iwarp4j.testing.AllocationMeter;
import io.iwarp4j.testing.Outbound;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The receive path (MPA deframer with CRC, then DdpStream validation, placement and delivery)
 * allocates nothing per segment: tagged segments into a region, untagged ones into a posted
 * buffer and into a control queue, each FPDU arriving whole or in three reads. Measured with the
 * JVM's per-thread allocation counter (octets, not time). Reads and memory are plain NIO wrapped
 * without leak tracking, because a tracked ByteBuf records a stack trace per access under the
 * PARANOID detector these tests run with.
 */
class DdpReceiveAllocationTest {
  private static final int ROUNDS = 20_000;
  private static final int PAYLOAD = 4096;

  /** Counts deliveries; allocates nothing. */
  private static final class CountingListener implements DdpStreamListener {
    long tagged;
    long untagged;
    long control;
    long errors;

    @Override
    public boolean acceptTagged(int rsvdUlp, Ulpdu segment) {
      return true;
    }

    @Override
    public void onTaggedMessage(int rsvdUlp, int stag, long to, long length) {
      tagged += length;
    }

    @Override
    public void onUntaggedMessage(int qn, int msn, long rsvdUlp, int length, long bufferId) {
      untagged += length;
    }

    @Override
    public void onControlMessage(int qn, int msn, long rsvdUlp, ByteBuf message) {
      control += message.readableBytes();
    }

    @Override
    public void onDdpError(DdpError error, Ulpdu segment, int headerLength) {
      errors++;
    }

    @Override
    public void onMpaError(MpaException error) {
      errors++;
    }

    @Override
    public void onInputClosed() {
    }
  }

  @Test
  void placementAndDeliveryAllocateNothingPerSegment() {
    AllocationFreedom.assumeNettyHasUnsafe();
    AllocationMeter mx = AllocationMeter.create();

    StagTable table = new StagTable(4, new SplittableRandom(3), Duration.ofSeconds(10));
    CountingListener listener = new CountingListener();
    EmbeddedChannel channel = new EmbeddedChannel();
    FpduDeframer deframer = new FpduDeframer(true, false, new CountingUlpduSink());
    channel.pipeline().addLast(deframer);
    ChannelHandlerContext ctx = channel.pipeline().context(deframer);
    ByteBuf posted = Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(PAYLOAD));
    ByteBuf[][] all = new ByteBuf[0][];
    try (ProtectionDomain pd = table.newProtectionDomain();
        MemoryRegion region = pd.register(ByteBuffer.allocateDirect(PAYLOAD),
            LOCAL_WRITE | REMOTE_WRITE, RegionOptions.defaults().zeroBased())) {
      FpduFramer framer = new FpduFramer(ctx, true, false, 0xFFFF);
      DdpStream stream = new DdpStream(channel, framer, deframer, null, false, pd, listener);
      UntaggedReceiveQueue q0 = stream.enableReceiveQueue(0, 1, 1);
      stream.enableControlQueue(1, 28);
      stream.start();

      ByteBuf[] tagged = reads(fpdu(taggedSegment(region.stag())));
      ByteBuf[] send = reads(fpdu(untaggedSegment(0, PAYLOAD)));
      ByteBuf[] readRequest = reads(fpdu(untaggedSegment(1, 28)));
      byte[] framed = new byte[send[0].capacity()];
      send[0].getBytes(0, framed);
      setMsn(send, 1);
      byte[] recomputed = new byte[framed.length];
      send[0].getBytes(0, recomputed);
      assertArrayEquals(framed, recomputed, "the test's CRC rewrite matches the framer's");
      all = new ByteBuf[][] {tagged, send, readRequest};
      int msn = 1;
      for (int round = 0; round < 2; round++) { // round 0 warms up, round 1 is measured
        long before = mx.allocatedBytes();
        for (int i = 0; i < ROUNDS; i++) {
          boolean split = (i & 1) == 0;
          feed(deframer, ctx, tagged, split);
          q0.post(posted, 0, PAYLOAD, i);
          setMsn(send, msn);
          setMsn(readRequest, msn);
          feed(deframer, ctx, send, split);
          feed(deframer, ctx, readRequest, split);
          msn++;
        }
        long allocated = mx.allocatedBytes() - before;
        if (round == 1) {
          // One allocation per segment would be at least 16 * 3 * ROUNDS = 960 000 octets.
          assertTrue(allocated < 16 * 1024, allocated + " octets allocated for " + 3 * ROUNDS
              + " segments");
        }
      }
      assertEquals(0, listener.errors);
      assertEquals(2L * ROUNDS * PAYLOAD, listener.tagged);
      assertEquals(2L * ROUNDS * PAYLOAD, listener.untagged);
      assertEquals(2L * ROUNDS * 28, listener.control);
      assertEquals(2L * ROUNDS * PAYLOAD, region.placedOctets());
    } finally {
      channel.finishAndReleaseAll();
      posted.release();
      for (ByteBuf[] reads : all) {
        for (ByteBuf b : reads) {
          b.release();
        }
      }
    }
  }

  /** A placeholder the stream replaces on start. */
  private static final class CountingUlpduSink implements io.iwarp4j.mpa.UlpduListener {
    @Override
    public void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu) {
      throw new AssertionError("the stream was not started");
    }

    @Override
    public void onMpaError(ChannelHandlerContext ctx, MpaException error) {
      throw new AssertionError(error);
    }

    @Override
    public void onInputClosed(ChannelHandlerContext ctx) {
    }
  }

  private static byte[] taggedSegment(int stag) {
    ByteBuf b = Unpooled.buffer();
    TaggedHeader.write(b, true, 0x40, stag, 0);
    b.writeZero(PAYLOAD);
    return bytes(b);
  }

  private static byte[] untaggedSegment(int qn, int payload) {
    ByteBuf b = Unpooled.buffer();
    UntaggedHeader.write(b, true, (0x41L + 2 * (1 - qn)) << 32, qn, 1, 0);
    b.writeZero(payload);
    return bytes(b);
  }

  private static byte[] bytes(ByteBuf b) {
    byte[] out = new byte[b.readableBytes()];
    b.readBytes(out);
    b.release();
    return out;
  }

  /** The FPDU carrying {@code ulpdu}, CRC included, framed by the real framer. */
  private static byte[] fpdu(byte[] ulpdu) {
    EmbeddedChannel tx = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    try {
      FpduFramer framer = new FpduFramer(tx.pipeline().firstContext(), true, false, 0xFFFF);
      framer.write(Unpooled.wrappedBuffer(ulpdu), null);
      framer.flush();
      return Outbound.drain(tx);
    } finally {
      tx.finishAndReleaseAll();
    }
  }

  /** The whole FPDU as one read, and the same octets as three reads; untracked direct memory. */
  private static ByteBuf[] reads(byte[] wire) {
    int a = wire.length / 3;
    int b = 2 * wire.length / 3;
    return new ByteBuf[] {direct(wire, 0, wire.length), direct(wire, 0, a),
        direct(wire, a, b - a), direct(wire, b, wire.length - b)};
  }

  private static ByteBuf direct(byte[] wire, int from, int length) {
    ByteBuf b = Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(length));
    b.setBytes(0, wire, from, length);
    return b;
  }

  /** Rewrites the MSN of an untagged FPDU and its CRC: the CRC covers it. */
  private static void setMsn(ByteBuf[] reads, int msn) {
    ByteBuf whole = reads[0];
    whole.setInt(2 + UntaggedHeader.MSN_OFFSET, msn);
    int length = whole.capacity();
    java.util.zip.CRC32C crc = CRC;
    crc.reset();
    crc.update(whole.internalNioBuffer(0, length - 4));
    int value = (int) crc.getValue();
    whole.setIntLE(length - 4, value);
    int at = 0;
    for (int i = 1; i < reads.length; i++) {
      reads[i].setBytes(0, whole, at, reads[i].capacity());
      at += reads[i].capacity();
    }
  }

  private static final java.util.zip.CRC32C CRC = new java.util.zip.CRC32C();

  /** Hands the reads to the deframer as the channel would, retaining them for reuse. */
  private static void feed(FpduDeframer deframer, ChannelHandlerContext ctx, ByteBuf[] reads,
      boolean split) {
    if (!split) {
      deframer.channelRead(ctx, reads[0].retain().readerIndex(0));
      return;
    }
    for (int i = 1; i < reads.length; i++) {
      deframer.channelRead(ctx, reads[i].retain().readerIndex(0));
    }
  }
}
