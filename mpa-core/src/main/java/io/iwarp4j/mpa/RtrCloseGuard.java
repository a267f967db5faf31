package io.iwarp4j.mpa;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds back the close of a peer-to-peer connection whose Responder may not have taken the RTR
 * yet: a close asked for after a good MPA Reply and before the RTR has been written plus one
 * quiet period ({@link MpaSettings#firstFpduDelay()}) is carried out only then.
 *
 * <p>Why: Linux siw as Responder crashed (iw_cm's {@code cm_work_handler}, siw's
 * {@code siw_rtr_data_ready}) when the Initiator closed a peer-to-peer connection before siw had
 * read its RTR (docs/interop.md, issue 22 bug 2). The {@link MpaInitiatorHandler} sends the RTR
 * at the end of the first quiet period even when a close is already held, so the peer always
 * gets its RTR, and this guard gives it a second quiet period to take it before the FIN.
 *
 * <p>Bounded: a held close is carried out at the latest {@value #BOUND_QUIET_PERIODS} quiet
 * periods after it was asked for (in case the RTR is never written), and at once when the
 * channel goes inactive. The guard sits first in the pipeline (nearest the socket) so that a
 * close from any handler passes it, and leaves the pipeline when its window is over, so it costs
 * nothing on the data path afterwards.
 *
 * <p>Not sharable; event loop only.
 */
final class RtrCloseGuard extends ChannelDuplexHandler {
  private static final Logger LOG = LoggerFactory.getLogger(RtrCloseGuard.class);

  /** Name of the guard in the pipeline. */
  static final String NAME = "mpa-rtr-close-guard";

  /** A held close waits at most this many quiet periods. */
  static final int BOUND_QUIET_PERIODS = 3;

  private final Duration quiet;
  private final List<ChannelPromise> held = new ArrayList<>(1);
  private ChannelHandlerContext ctx;
  private boolean rtrWritten;
  private boolean over;
  private ScheduledFuture<?> windowEnd;
  private ScheduledFuture<?> bound;

  /**
   * A guard for one connection.
   *
   * @param quiet the quiet period; positive
   */
  RtrCloseGuard(Duration quiet) {
    if (quiet.isZero() || quiet.isNegative()) {
      throw new IllegalArgumentException("the quiet period must be positive, not " + quiet);
    }
    this.quiet = quiet;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  /** Whether a close has been asked for and is being held back. */
  boolean closeHeld() {
    return !held.isEmpty();
  }

  /** Whether the guard's window is over (closes pass straight through). */
  boolean isOver() {
    return over;
  }

  /**
   * The RTR has left (or failed to): a held close, and any close asked for from now on, waits
   * one more quiet period, the time the peer gets to take the RTR.
   *
   * @param success false when the write failed (nothing for the peer to take: release at once)
   */
  void rtrWritten(boolean success) {
    if (over || rtrWritten) {
      return;
    }
    rtrWritten = true;
    if (!success) {
      release("the RTR could not be written");
      return;
    }
    windowEnd = ctx.executor().schedule(() -> release("the peer had " + quiet
        + " to take the RTR"), quiet.toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    if (over || !ctx.channel().isActive()) {
      ctx.close(promise);
      return;
    }
    if (held.isEmpty()) {
      LOG.debug("{} holding a close back until the peer-to-peer RTR has been written and the"
          + " peer has had {} to take it (RTR written: {})", ctx.channel(), quiet, rtrWritten);
      bound = ctx.executor().schedule(() -> release("the close was held for "
          + BOUND_QUIET_PERIODS + " quiet periods"),
          quiet.toNanos() * BOUND_QUIET_PERIODS, TimeUnit.NANOSECONDS);
    }
    held.add(promise);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    release("the connection went inactive");
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    cancelTimers();
  }

  private void release(String why) {
    if (over) {
      return;
    }
    over = true;
    cancelTimers();
    if (!held.isEmpty()) {
      LOG.debug("{} closing now: {}", ctx.channel(), why);
      ChannelPromise first = held.get(0);
      ctx.close(first);
      for (int i = 1; i < held.size(); i++) {
        ChannelPromise p = held.get(i);
        if (!p.isVoid()) {
          ctx.channel().closeFuture().addListener(f -> p.trySuccess());
        }
      }
      held.clear();
    }
    if (!ctx.isRemoved()) {
      ctx.pipeline().remove(this);
    }
  }

  private void cancelTimers() {
    if (windowEnd != null) {
      windowEnd.cancel(false);
      windowEnd = null;
    }
    if (bound != null) {
      bound.cancel(false);
      bound = null;
    }
  }
}
