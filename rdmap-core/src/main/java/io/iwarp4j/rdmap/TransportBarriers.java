package io.iwarp4j.rdmap;

import io.netty.channel.Channel;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes {@link TransportBarrier}s behind batches of messages and reports their release: how the
 * endpoint learns, without an object or a promise per message, which messages the transport has
 * taken. Each transmit message (a Write, a Send, a Read Response) gets the next transmit sequence
 * number; a barrier written after message {@code n - 1} carries {@code n}, and its release means
 * every message below {@code n} was taken (or, when the channel is no longer active, dropped by
 * the close).
 *
 * <p>Barriers go through {@code channel.write}, which reaches the transport in call order with
 * the framer's writes (nothing between the tail and the MPA deframer buffers writes), the same
 * ordering {@code DdpStream.terminate} relies on for its closing write. Released barriers are
 * kept on a free stack for the next batch, so the steady state allocates nothing. Event-loop
 * confined.
 */
final class TransportBarriers {
  /** Told of every released barrier. */
  interface Listener {
    /**
     * The transport released the barrier written after transmit message {@code upTo - 1}.
     *
     * @param sent true when the channel was still active, so the messages left; false when the
     *     close dropped them
     */
    void onTaken(long upTo, boolean sent);
  }

  private static final Logger log = LoggerFactory.getLogger(TransportBarriers.class);

  private final Channel channel;
  private final Listener listener;
  private TransportBarrier[] free = new TransportBarrier[4];
  private int freeCount;
  /** The {@code upTo} of the last barrier written. */
  private long covered;

  TransportBarriers(Channel channel, Listener listener) {
    this.channel = channel;
    this.listener = listener;
  }

  /**
   * Writes a barrier behind transmit messages below {@code upTo}, unless the last one already
   * covers them or the channel is closed (then the close drops what is queued anyway). Not
   * flushed.
   */
  void writeBehind(long upTo) {
    if (upTo == covered || !channel.isActive()) {
      return;
    }
    covered = upTo;
    TransportBarrier b = freeCount > 0 ? free[--freeCount] : new TransportBarrier(this);
    b.arm(upTo);
    channel.write(b, channel.voidPromise());
  }

  /** Whether transmit messages below {@code upTo} are already behind a barrier. */
  boolean covers(long upTo) {
    return covered == upTo;
  }

  /** Called by a barrier the transport released. */
  void released(TransportBarrier b) {
    long upTo = b.upTo();
    boolean sent = channel.isActive();
    if (freeCount == free.length) {
      free = Arrays.copyOf(free, freeCount * 2);
    }
    free[freeCount++] = b;
    if (log.isDebugEnabled()) {
      log.debug("{} transport took transmit messages below {} ({})", channel, upTo,
          sent ? "sent" : "dropped by the close");
    }
    listener.onTaken(upTo, sent);
  }
}
