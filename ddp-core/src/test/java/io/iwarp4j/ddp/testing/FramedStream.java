package io.iwarp4j.ddp.testing;

import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.DdpStreamListener;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.mpa.FpduDeframer;
import io.iwarp4j.mpa.FpduFramer;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.mpa.UlpduListener;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * One end of a DDP stream over MPA framing in an {@link EmbeddedChannel}, without an MPA startup
 * (shared by the ddp-core and rdmap-core tests through ddp-core's test jar). The channel holds the
 * handlers put {@link Builder#before before} the deframer (a test socket, say), then an
 * {@link FpduDeframer}; an {@link FpduFramer} writes through the deframer's context, as in
 * production; the {@link DdpStream} is built from them.
 */
public final class FramedStream {
  /** The deframer's listener until the stream is started: nothing may arrive before. */
  private static final UlpduListener NOT_STARTED = new UlpduListener() {
    @Override
    public void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu) {
      throw new AssertionError("a ULPDU arrived before the stream was started");
    }

    @Override
    public void onMpaError(ChannelHandlerContext ctx, MpaException error) {
      throw new AssertionError(error);
    }

    @Override
    public void onInputClosed(ChannelHandlerContext ctx) {
    }
  };

  public final EmbeddedChannel channel;
  public final FpduDeframer deframer;
  public final FpduFramer framer;
  public final DdpStream stream;

  private FramedStream(Builder b, boolean initiator, ProtectionDomain pd,
      DdpStreamListener listener) {
    deframer = new FpduDeframer(b.crc, b.markersIn, NOT_STARTED);
    List<ChannelHandler> handlers = new ArrayList<>(b.before);
    handlers.add(deframer);
    channel = new EmbeddedChannel(handlers.toArray(new ChannelHandler[0]));
    if (b.allocator != null) {
      channel.config().setAllocator(b.allocator);
    }
    framer = new FpduFramer(channel.pipeline().context(deframer), b.crc, b.markersOut, b.mulpdu);
    stream = new DdpStream(channel, framer, deframer, null, initiator, pd, listener);
  }

  /** CRC off, no Markers, MULPDU 1024, Netty's default allocator, nothing before the deframer. */
  public static Builder builder() {
    return new Builder();
  }

  /** How an end is framed. */
  public static final class Builder {
    private boolean crc;
    private boolean markersOut;
    private boolean markersIn;
    private int mulpdu = 1024;
    private ByteBufAllocator allocator;
    private final List<ChannelHandler> before = new ArrayList<>();

    private Builder() {
    }

    /** Whether both directions carry a CRC. */
    public Builder crc(boolean on) {
      this.crc = on;
      return this;
    }

    /** Whether the framer inserts Markers ({@code out}) and the deframer expects them ({@code in}). */
    public Builder markers(boolean out, boolean in) {
      this.markersOut = out;
      this.markersIn = in;
      return this;
    }

    /** The framer's MULPDU. */
    public Builder mulpdu(int octets) {
      this.mulpdu = octets;
      return this;
    }

    /** The channel's allocator (headers, FPDU prefixes and trailers); null for Netty's default. */
    public Builder allocator(ByteBufAllocator alloc) {
      this.allocator = alloc;
      return this;
    }

    /** Handlers ahead of the deframer, first to last: what the framer's writes pass through. */
    public Builder before(ChannelHandler... handlers) {
      before.addAll(List.of(handlers));
      return this;
    }

    /**
     * The end.
     *
     * @param listener the stream's listener, or null for one set later (as RDMAP does)
     */
    public FramedStream build(boolean initiator, ProtectionDomain pd,
        DdpStreamListener listener) {
      return new FramedStream(this, initiator, pd, listener);
    }
  }
}
