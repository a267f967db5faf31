package io.iwarp4j.ddp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.testing.FramedStream;
import io.iwarp4j.ddp.testing.RecordingStreamListener;
import io.iwarp4j.mpa.FpduDeframer;
import io.iwarp4j.mpa.FpduFramer;
import io.iwarp4j.testing.Inbound;
import io.iwarp4j.testing.Outbound;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * Two DDP streams over MPA framing, back to back in EmbeddedChannels, without a startup: each
 * end is a {@link FramedStream} (a channel holding a {@link FpduDeframer}, a {@link FpduFramer}
 * writing through the deframer's context and a {@link DdpStream} built from them). End A is the
 * Initiator. {@link #shuttle()} moves what each end wrote to the other as inbound reads whose
 * sizes {@link #chunker} chooses (the TCP chunking).
 */
final class StreamPair implements AutoCloseable {
  /** One end. */
  static final class End {
    final EmbeddedChannel channel;
    final FpduDeframer deframer;
    final FpduFramer framer;
    final RecordingStreamListener listener = new RecordingStreamListener();
    final DdpStream stream;
    /** Inbound reads fed since the last {@link #assertReadsReleased()}. */
    final List<ByteBuf> fed = new ArrayList<>();

    End(boolean crc, boolean markersOut, boolean markersIn, int mulpdu, boolean initiator,
        ProtectionDomain pd, ByteBufAllocator alloc) {
      FramedStream end = FramedStream.builder().crc(crc).markers(markersOut, markersIn)
          .mulpdu(mulpdu).allocator(alloc).build(initiator, pd, listener);
      channel = end.channel;
      deframer = end.deframer;
      framer = end.framer;
      stream = end.stream;
    }

    /** Every read fed has been released, and the deframer holds nothing (an FPDU boundary). */
    void assertReadsReleased() {
      assertEquals(0, deframer.heldBufferCount(), "read buffers held between FPDUs");
      for (ByteBuf b : fed) {
        assertEquals(0, b.refCnt(), "an inbound read was not released");
      }
      fed.clear();
    }
  }

  final End a;
  final End b;
  /** Given the octets left to move, the size of the next read; whole by default. */
  IntUnaryOperator chunker = left -> left;

  StreamPair(boolean crc, boolean markers, int mulpdu, ProtectionDomain pdA,
      ProtectionDomain pdB) {
    this(crc, markers, mulpdu, pdA, pdB, null);
  }

  /**
   * @param alloc the allocator both channels use (headers, FPDU prefixes and trailers), or null
   *     for Netty's default
   */
  StreamPair(boolean crc, boolean markers, int mulpdu, ProtectionDomain pdA,
      ProtectionDomain pdB, ByteBufAllocator alloc) {
    a = new End(crc, markers, markers, mulpdu, true, pdA, alloc);
    b = new End(crc, markers, markers, mulpdu, false, pdB, alloc);
  }

  /** Moves bytes both ways until nothing moves any more; returns the octets moved A to B. */
  long shuttle() {
    long toB = 0;
    boolean moved;
    do {
      long n = move(a, b);
      toB += n;
      moved = n > 0 | move(b, a) > 0;
    } while (moved);
    return toB;
  }

  private long move(End from, End to) {
    byte[] wire = Outbound.drain(from.channel);
    to.fed.addAll(Inbound.feed(to.channel, wire, chunker));
    return wire.length;
  }

  @Override
  public void close() {
    a.channel.finishAndReleaseAll();
    b.channel.finishAndReleaseAll();
  }
}
