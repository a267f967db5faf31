package io.iwarp4j.tools.ping;

import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Waits for the next completion rping's state machine expects, the way rping's semaphore does:
 * successful Send and RDMA Write completions nobody waits for are skipped, a flushed work
 * request means the connection went away, any other error status ends the ping.
 */
final class PingCompletions {
  /** Thrown when the queue pair was flushed: the peer disconnected (not an error for rping). */
  static final class Flushed extends Exception {
    private static final long serialVersionUID = 1L;

    Flushed(String what) {
      super("flushed while waiting for " + what, null, false, false);
    }
  }

  private final CompletionQueue cq;
  private final Duration timeout;
  private final WorkCompletion[] wc = {new WorkCompletion()};

  PingCompletions(CompletionQueue cq, Duration timeout) {
    this.cq = cq;
    this.timeout = timeout;
  }

  /**
   * The next completion of {@code want}.
   *
   * @return the completion (valid until the next call)
   */
  WorkCompletion next(WcOpcode want, String what) throws PingException, Flushed,
      InterruptedException {
    return next(want, what, null);
  }

  /**
   * The next completion of {@code want}; on a timeout the message ends with what
   * {@code missing} says did not arrive.
   *
   * @param missing says what did not arrive, or null
   * @return the completion (valid until the next call)
   */
  WorkCompletion next(WcOpcode want, String what, Supplier<String> missing)
      throws PingException, Flushed, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || cq.await(wc, left, TimeUnit.NANOSECONDS) == 0) {
        throw new PingException("timed out after " + timeout.toSeconds() + " s waiting for "
            + what + (missing != null ? ": " + missing.get() : ""));
      }
      WorkCompletion c = wc[0];
      if (c.status() == WcStatus.WR_FLUSH_ERR) {
        throw new Flushed(what);
      }
      if (!c.isSuccess()) {
        throw new PingException("cq completion failed status " + c.status().ibvValue() + " ("
            + c.status() + ", vendor error 0x" + Integer.toHexString(c.vendorError())
            + ") while waiting for " + what);
      }
      if (c.opcode() == want) {
        return c;
      }
      if (c.opcode() != WcOpcode.SEND && c.opcode() != WcOpcode.RDMA_WRITE) {
        throw new PingException("unexpected " + c.opcode() + " completion while waiting for "
            + what);
      }
    }
  }
}
