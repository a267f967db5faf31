package io.iwarp4j.verbs;

import io.iwarp4j.verbs.engine.QpLoop;
import io.iwarp4j.verbs.engine.ReceiveQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue pair's reset (ERROR to RESET to INIT, like {@code ibv_modify_qp} to RESET) and close
 * (flush, leave the domain and the device): called from any thread, each runs its work on the
 * event loop and waits a bounded time for it.
 */
final class QpLifecycle {
  private static final Logger log = LoggerFactory.getLogger(QueuePair.class);

  private final QueuePair qp;
  private final RdmaDevice device;
  private final int number;
  private final ReceiveQueue rq;
  private final QpBinding binding;
  private final QpTeardown teardown;
  private final AtomicBoolean released = new AtomicBoolean();

  QpLifecycle(QueuePair qp, RdmaDevice device, ReceiveQueue rq, QpBinding binding,
      QpTeardown teardown) {
    this.qp = qp;
    this.device = device;
    this.number = qp.number();
    this.rq = rq;
    this.binding = binding;
    this.teardown = teardown;
  }

  /** {@link QueuePair#reset()}. */
  void reset() {
    QpState s = qp.state();
    if (s != QpState.ERROR) {
      throw new IllegalStateException(qp.refusal("reset", s, s == QpState.CLOSED
          ? "the queue pair is destroyed" : "reset needs ERROR: disconnect the connection or"
          + " call modifyToError() first (a connected queue pair is not reset)"));
    }
    QpLoop l = binding.loop();
    RdmaConnection c = binding.connection();
    if (c != null && !c.closeFuture().isDone()) {
      if (l != null && l.inEventLoop()) {
        throw new IllegalStateException(qp.refusal("reset", s, "its connection is still closing;"
            + " reset from another thread, or once RdmaConnection.closeFuture() completed"));
      }
      // Its RDMAP endpoint has reported everything once the channel is closed.
      awaitClosed(c);
    }
    if (l == null) {
      throw new IllegalStateException(qp.refusal("reset", s, "no event loop is bound"));
    }
    if (l.inEventLoop()) {
      resetOnLoop();
      return;
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    binding.execute(l, () -> {
      try {
        resetOnLoop();
        done.complete(null);
      } catch (RuntimeException e) {
        done.completeExceptionally(e);
      }
    });
    try {
      done.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while resetting queue pair " + number, e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r
          : new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("queue pair " + number + ": reset did not run on its"
          + " event loop within 10 s", e);
    }
  }

  private void awaitClosed(RdmaConnection c) {
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        c.closeFuture().get(10, TimeUnit.SECONDS);
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while queue pair " + number
            + " waited for its connection to close", e);
      } catch (ExecutionException e) {
        return; // completed, either way
      } catch (TimeoutException e) {
        // Still closing gracefully: the queue pair is in ERROR, so end it now.
        log.debug("queue pair {}: connection still open after 10 s, closing it", number);
        c.channel().close();
      }
    }
    throw new IllegalStateException("queue pair " + number + ": its connection " + c
        + " did not close within 20 s; reset refused");
  }

  /** ERROR to RESET to INIT, on the loop: flush, forget the connection, unbind the loop. */
  private void resetOnLoop() {
    binding.checkLoop("reset");
    if (!qp.moveState(QpState.ERROR, QpState.RESET)) {
      throw new IllegalStateException(qp.refusal("reset", qp.state(),
          "the state changed meanwhile"));
    }
    // Everything posted before this point completes now, once; nothing is posted in RESET.
    teardown.flushAll(-1, -1, null, 0);
    rq.forgetViews();
    teardown.reset();
    binding.unbind();
    qp.moveState(QpState.RESET, QpState.INIT); // unless close() made it CLOSED meanwhile
    log.debug("queue pair {} reset: INIT", number);
  }

  /** {@link QueuePair#close()}, once the state was {@code previous} and is now CLOSED. */
  void close(QpState previous) {
    CompletableFuture<Void> done = closeAsync(previous);
    try {
      awaitQuietly(done);
    } finally {
      release();
    }
  }

  /**
   * Starts the close of {@link #close} without waiting for the event loop: the future completes
   * (and the queue pair is released) once the flush ran there. For the device's close, which
   * closes every queue pair at once under one bound.
   */
  CompletableFuture<Void> closeAsync(QpState previous) {
    log.debug("closing queue pair {} (was {})", number, previous);
    QpLoop l = binding.requestClose();
    CompletableFuture<Void> done = new CompletableFuture<>();
    try {
      if (l == null) {
        if (!binding.claimed() || device == null) {
          // Never bound and never will be: this thread is the only consumer left.
          teardown.closeOnLoop();
        }
        // Otherwise a connection attempt binds a loop soon and sees closeRequested.
      } else if (l.inEventLoop()) {
        teardown.closeOnLoop();
      } else {
        binding.execute(l, () -> {
          try {
            teardown.closeOnLoop();
          } finally {
            release();
            done.complete(null);
          }
        });
        return done;
      }
    } catch (RuntimeException e) {
      release();
      throw e;
    }
    release();
    done.complete(null);
    return done;
  }

  /** Releases the queue pair if {@link #closeAsync}'s loop task did not (idempotent). */
  void releaseAfterClose() {
    release();
  }

  private void release() {
    if (released.compareAndSet(false, true)) {
      qp.pd().queuePairClosed(qp);
      qp.sendCq().detach(qp);
      qp.recvCq().detach(qp);
      SharedReceiveQueue srq = qp.sharedReceiveQueue();
      if (srq != null) {
        srq.detach(qp);
      }
      if (device != null) {
        device.forget(qp);
      }
    }
  }

  private static void awaitQuietly(CompletableFuture<Void> done) {
    try {
      done.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (TimeoutException | ExecutionException e) {
      log.warn("queue pair close did not finish on its event loop: {}", e.toString());
    }
  }
}
