package io.iwarp4j.ddp;

import io.iwarp4j.mpa.FpduFramer;
import io.iwarp4j.mpa.TerminateClose;
import io.iwarp4j.wire.OpcodeTable;
import io.iwarp4j.wire.TerminateMessage;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a {@link DdpStream}'s sending side: whether it may still send, the one Terminate it
 * may send (RFC 5040 §4.8; nothing follows it, §5.4) and the graceful close (RFC 5041 §6.2.1).
 * {@link DdpStream#terminate} and {@link DdpStream#close} document the behaviour; this class
 * holds their state. Event-loop confined.
 */
final class StreamTeardown {
  private static final Logger log = LoggerFactory.getLogger(DdpStream.class);

  private final Channel channel;
  private final FpduFramer framer;
  private final DdpSegmenter segmenter;
  /** RFC 5044 §7.1.2 rule 4: whether this end may send yet. */
  private final BooleanSupplier sendEnabled;

  private boolean terminateSent;
  /** The octets after the DDP header of the Terminate this stream sent; 0 while none was. */
  private int sentTerminateLength;
  private boolean closed;

  StreamTeardown(Channel channel, FpduFramer framer, DdpSegmenter segmenter,
      BooleanSupplier sendEnabled) {
    this.channel = channel;
    this.framer = framer;
    this.segmenter = segmenter;
    this.sendEnabled = sendEnabled;
  }

  /** Throws unless a message may be sent now. */
  void checkCanSend() {
    if (terminateSent) {
      throw new IllegalStateException("a Terminate was sent on this stream: nothing may follow it"
          + " (RFC 5040 §5.4)");
    }
    if (closed) {
      throw new IllegalStateException("the DDP stream is closed (RFC 5041 §6.2.1: transfers"
          + " after teardown fail)");
    }
    if (!sendEnabled.getAsBoolean()) {
      throw new IllegalStateException("this MPA Responder may not send before the Initiator's"
          + " first FPDU arrived (RFC 5044 §7.1.2 rule 4); wait for"
          + " MpaConnection.sendEnabledFuture()");
    }
  }

  int sentTerminateLength() {
    return sentTerminateLength;
  }

  /** {@link DdpStream#terminate}, its arguments checked. */
  ChannelFuture terminate(int layer, int errorType, int errorCode, ByteBuf ddpHeader,
      int ddpSegmentLength, ByteBuf rdmaHeader) {
    ChannelPromise closePromise = channel.newPromise();
    if (terminateSent || closed || !channel.isActive() || !sendEnabled.getAsBoolean()) {
      log.debug("{} closing without a Terminate (sent={}, closed={}, sendEnabled={})", channel,
          terminateSent, closed, sendEnabled.getAsBoolean());
      closed = true;
      channel.close(closePromise);
      return closePromise;
    }
    // A Terminate is sent at most once per stream: no reason to keep a buffer for it.
    ByteBuf message = Unpooled.buffer(TerminateMessage.MAX_LENGTH);
    try {
      int msn = segmenter.nextMsn(OpcodeTable.TERMINATE_QN);
      if (ddpHeader == null) {
        TerminateMessage.write(message, msn, layer, errorType, errorCode);
      } else {
        TerminateMessage.write(message, msn, layer, errorType, errorCode, true, ddpSegmentLength,
            ddpHeader, rdmaHeader);
      }
      // TerminateMessage wrote the whole ULPDU; the segmenter writes the same DDP header with
      // the queue's MSN (consuming it) and takes the rest as the RDMAP header.
      long rsvdUlp = UntaggedHeader.rsvdUlp(message, 0);
      ByteBuf rest = message.slice(UntaggedHeader.LENGTH,
          message.readableBytes() - UntaggedHeader.LENGTH);
      terminateSent = true;
      segmenter.sendUntagged(rsvdUlp, OpcodeTable.TERMINATE_QN, rest, null);
      sentTerminateLength = rest.readableBytes();
    } catch (RuntimeException e) {
      closed = true;
      channel.close();
      throw e;
    } finally {
      message.release();
    }
    log.debug("{} sent Terminate {}/{}/0x{}; closing", channel, layer, errorType,
        Integer.toHexString(errorCode));
    closed = true;
    framer.flush();
    // Closes once everything before has left, after draining the peer's input so that our
    // close is a FIN, not a RST that would destroy the Terminate in flight.
    TerminateClose.closeAfterWrites(channel, closePromise);
    return closePromise;
  }

  /** {@link DdpStream#close}. */
  ChannelFuture close() {
    closed = true;
    framer.flush();
    return channel.close();
  }
}
