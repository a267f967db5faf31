package io.iwarp4j.mpa;

import io.iwarp4j.testing.Inbound;
import io.iwarp4j.testing.Outbound;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Two EmbeddedChannels wired back to back: whatever one writes is fed to the other as inbound
 * reads of {@code chunk} octets, and a closed side closes the other (as a FIN would without
 * half-closure). Records the bytes of each direction for byte-exact assertions.
 */
final class StartupPair implements AutoCloseable {
  final EmbeddedChannel initiator;
  final EmbeddedChannel responder;
  /** Initiator -> Responder octets so far. */
  final ByteArrayOutputStream toResponder = new ByteArrayOutputStream();
  /** Responder -> Initiator octets so far. */
  final ByteArrayOutputStream toInitiator = new ByteArrayOutputStream();
  int chunk = Integer.MAX_VALUE;
  boolean propagateClose = true;

  StartupPair(ChannelHandler[] initiatorHandlers, ChannelHandler[] responderHandlers) {
    this(new EmbeddedChannel(initiatorHandlers), new EmbeddedChannel(responderHandlers));
  }

  /** Wires two existing channels. */
  StartupPair(EmbeddedChannel initiator, EmbeddedChannel responder) {
    this.initiator = initiator;
    this.responder = responder;
  }

  /** A pair running MPA with these handlers and, on the responder, the extra handlers after it. */
  static StartupPair of(MpaInitiatorHandler i, MpaResponderHandler r, ChannelHandler... after) {
    List<ChannelHandler> rh = new ArrayList<>();
    rh.add(r);
    rh.addAll(List.of(after));
    return new StartupPair(new ChannelHandler[] {i}, rh.toArray(new ChannelHandler[0]));
  }

  /** Moves bytes (and closes) both ways until nothing moves any more. */
  StartupPair shuttle() {
    boolean moved;
    int rounds = 0;
    do {
      initiator.runPendingTasks();
      responder.runPendingTasks();
      moved = move(initiator, responder, toResponder);
      moved |= move(responder, initiator, toInitiator);
      if (++rounds > 10_000) {
        throw new AssertionError("the pair never went quiet");
      }
    } while (moved);
    return this;
  }

  private boolean move(EmbeddedChannel from, EmbeddedChannel to, ByteArrayOutputStream log) {
    byte[] out = Outbound.drain(from);
    boolean moved = out.length > 0;
    log.write(out, 0, out.length);
    Inbound.feed(to, out, left -> chunk);
    if (propagateClose && !from.isOpen() && to.isOpen()) {
      to.close();
      moved = true;
    }
    return moved;
  }

  byte[] toResponderBytes() {
    return toResponder.toByteArray();
  }

  byte[] toInitiatorBytes() {
    return toInitiator.toByteArray();
  }

  @Override
  public void close() {
    initiator.finishAndReleaseAll();
    responder.finishAndReleaseAll();
  }
}
