package io.iwarp4j.tools.perf;

import io.iwarp4j.mpa.MpaError;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.verbs.RdmaConnectException;
import io.iwarp4j.verbs.RdmaRejectedException;
import io.iwarp4j.verbs.RdmaUnreachableException;
import java.io.IOException;

/**
 * The client's data connects, tried again while perftest's server is not listening yet.
 *
 * <p>perftest's server listens for the data connections only after the first sync handshake,
 * so a client may come too early; perftest's client retries ten times, 100 ms apart. Two
 * failures mean "nobody listens yet": a refused TCP connect, and a connection that closes
 * during the MPA startup before any Reply arrived (MPA error 0x01). The second is what a
 * NAT in front of the server shows: qemu's user-mode {@code hostfwd} accepts the TCP
 * connection on the host and resets it when nothing listens in the guest (docs/interop.md,
 * siw finding §7.9). A third is a connection that nobody answers: no MPA Reply within the
 * (short) reply timeout of a data connect. Seen against perftest in the siw guest: a connection
 * that arrives while perftest swaps its control listener for the data listener is accepted by
 * the guest's TCP and then never read (siw's listener is being torn down), so the Request sits
 * there. A rejection, a TCP connect timeout or any other MPA error is final.
 *
 * <p>A failed connect leaves its queue pair unusable (it moves to ERROR), so every retry takes
 * a fresh queue pair and releases the failed one; the memory regions belong to the protection
 * domain and stay.
 *
 * @param <Q> the queue pair type (a stand-in in tests)
 */
final class DataConnectRetry<Q> {
  /** Attempts in all: more patient than perftest's 10, since an emulated guest is slow. */
  static final int ATTEMPTS = 50;
  /** Pause between attempts, perftest's. */
  static final long PAUSE_MILLIS = 100;
  /**
   * The MPA reply timeout of a data connect: far above the 3-150 ms siw takes under emulation
   * (docs/interop.md, siw finding §8), far below the default 10 s, so an unanswered attempt is
   * retried.
   */
  static final long REPLY_TIMEOUT_MILLIS = 5000;

  /** Connects one queue pair, throwing the stack's exception as it is. */
  interface Connector<Q> {
    void connect(Q qp) throws IOException, InterruptedException;
  }

  /** Creates, releases and waits: the side effects, replaceable in tests. */
  interface Resources<Q> {
    Q fresh();

    void release(Q failed);

    void pause(long millis) throws InterruptedException;

    /** Told before each retry: attempt {@code failed} failed with {@code e} (a log line). */
    void retrying(int failed, RdmaConnectException e);
  }

  private final Resources<Q> resources;
  private final int attempts;

  DataConnectRetry(Resources<Q> resources, int attempts) {
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be >= 1, not " + attempts);
    }
    this.resources = resources;
    this.attempts = attempts;
  }

  /**
   * Connects {@code first}, and fresh queue pairs after each retryable failure.
   *
   * @param first the queue pair of the first attempt
   * @param connector the connect
   * @return the queue pair that connected (first or a fresh one)
   * @throws IOException the last failure: a final one, or the retryable one of the last attempt
   */
  Q connect(Q first, Connector<Q> connector) throws IOException, InterruptedException {
    Q qp = first;
    for (int attempt = 1; ; attempt++) {
      try {
        connector.connect(qp);
        return qp;
      } catch (RdmaConnectException e) {
        if (attempt >= attempts || !retryable(e)) {
          throw e;
        }
        resources.retrying(attempt, e);
        resources.release(qp);
        qp = resources.fresh();
        resources.pause(PAUSE_MILLIS);
      }
    }
  }

  /**
   * Whether a failed data connect means "the server does not listen yet".
   *
   * @param e the failure
   * @return true for a refused connect, a close during the MPA startup (0x01) and no MPA Reply
   *     within the reply timeout
   */
  static boolean retryable(RdmaConnectException e) {
    if (e instanceof RdmaUnreachableException) {
      return true;
    }
    if (e instanceof RdmaRejectedException) {
      return false;
    }
    // A timeout retries only when TCP connected and no MPA Reply came (not a TCP connect
    // timeout): the cause is then the MPA layer's.
    return e.getCause() instanceof MpaException m && m.error() == MpaError.TCP_CONNECTION_LOST;
  }
}
