package io.iwarp4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.mpa.MpaError;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.verbs.RdmaConnectException;
import io.iwarp4j.verbs.RdmaRejectedException;
import io.iwarp4j.verbs.RdmaTimeoutException;
import io.iwarp4j.verbs.RdmaUnreachableException;
import java.io.IOException;
import java.net.ConnectException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The data-connect retry policy: which failures mean "the server does not listen yet", and that
 * every retry runs on a fresh queue pair while the failed one is released.
 */
class DataConnectRetryTest {
  /** A stand-in queue pair: just a number. */
  record FakeQp(int id) {
  }

  private static final class Recorder implements DataConnectRetry.Resources<FakeQp> {
    int created;
    final List<FakeQp> released = new ArrayList<>();
    final List<Long> pauses = new ArrayList<>();
    final List<Integer> retries = new ArrayList<>();

    @Override
    public FakeQp fresh() {
      return new FakeQp(++created);
    }

    @Override
    public void release(FakeQp failed) {
      released.add(failed);
    }

    @Override
    public void pause(long millis) {
      pauses.add(millis);
    }

    @Override
    public void retrying(int failed, RdmaConnectException e) {
      retries.add(failed);
    }
  }

  /** A connector that fails with the queued exceptions, then succeeds; records the QPs used. */
  private static final class Script implements DataConnectRetry.Connector<FakeQp> {
    final Deque<RdmaConnectException> failures = new ArrayDeque<>();
    final List<FakeQp> tried = new ArrayList<>();

    Script(RdmaConnectException... fs) {
      failures.addAll(List.of(fs));
    }

    @Override
    public void connect(FakeQp qp) throws IOException {
      tried.add(qp);
      RdmaConnectException f = failures.poll();
      if (f != null) {
        throw f;
      }
    }
  }

  private static RdmaConnectException refused() {
    return new RdmaUnreachableException("/127.0.0.1:7175 is unreachable: Connection refused",
        new ConnectException("Connection refused"));
  }

  private static RdmaConnectException closedDuringStartup() {
    return new RdmaConnectException("MPA startup with /127.0.0.1:7175 failed",
        new MpaException(MpaError.TCP_CONNECTION_LOST,
            "the connection closed during the MPA startup"));
  }

  @Test
  void aRefusedConnectAndAResetBeforeTheReplyAreRetryable() {
    assertTrue(DataConnectRetry.retryable(refused()));
    assertTrue(DataConnectRetry.retryable(closedDuringStartup()));
  }

  @Test
  void noMpaReplyWithinTheReplyTimeoutIsRetryable() {
    assertTrue(DataConnectRetry.retryable(new RdmaTimeoutException("MPA startup with "
        + "/127.0.0.1:7181: no MPA Reply", new MpaException(MpaError.TCP_CONNECTION_LOST,
        "no MPA Reply within PT5S", new java.util.concurrent.TimeoutException()))));
  }

  @Test
  void rejectionsTcpTimeoutsAndOtherMpaErrorsAreFinal() {
    assertFalse(DataConnectRetry.retryable(new RdmaRejectedException("rejected by the peer",
        new byte[0], 0, 0, null)));
    assertFalse(DataConnectRetry.retryable(new RdmaTimeoutException("TCP connect to "
        + "/127.0.0.1:7181 timed out", new io.netty.channel.ConnectTimeoutException("timeout"))));
    assertFalse(DataConnectRetry.retryable(new RdmaConnectException("MPA startup failed",
        new MpaException(MpaError.INVALID_STARTUP_FRAME, "bad key"))));
    assertFalse(DataConnectRetry.retryable(new RdmaConnectException("set-up failed", null)));
  }

  @Test
  void everyRetryUsesAFreshQueuePairAndReleasesTheFailedOne() throws Exception {
    Recorder r = new Recorder();
    DataConnectRetry<FakeQp> retry = new DataConnectRetry<>(r, 10);
    FakeQp first = new FakeQp(0);
    Script s = new Script(closedDuringStartup(), refused(), closedDuringStartup());

    FakeQp connected = retry.connect(first, s);

    assertEquals(List.of(first, new FakeQp(1), new FakeQp(2), new FakeQp(3)), s.tried);
    assertEquals(List.of(first, new FakeQp(1), new FakeQp(2)), r.released);
    assertEquals(new FakeQp(3), connected);
    assertEquals(List.of(100L, 100L, 100L), r.pauses);
    // One log line per retry, naming the attempt that failed.
    assertEquals(List.of(1, 2, 3), r.retries);
  }

  @Test
  void aFirstAttemptThatConnectsKeepsItsQueuePair() throws Exception {
    Recorder r = new Recorder();
    FakeQp first = new FakeQp(0);
    assertSame(first, new DataConnectRetry<>(r, 10).connect(first, new Script()));
    assertEquals(0, r.created);
    assertTrue(r.released.isEmpty());
  }

  @Test
  void aFinalFailureIsThrownAtOnceWithoutAFreshQueuePair() {
    Recorder r = new Recorder();
    RdmaConnectException rejected = new RdmaRejectedException("rejected by the peer",
        new byte[0], 0, 0, null);
    RdmaConnectException thrown = assertThrows(RdmaConnectException.class,
        () -> new DataConnectRetry<>(r, 10).connect(new FakeQp(0), new Script(rejected)));
    assertSame(rejected, thrown);
    assertEquals(0, r.created);
    assertTrue(r.released.isEmpty());
  }

  @Test
  void afterTheLastAttemptTheRetryableFailureIsThrown() {
    Recorder r = new Recorder();
    Script s = new Script(refused(), refused(), closedDuringStartup());
    RdmaConnectException thrown = assertThrows(RdmaConnectException.class,
        () -> new DataConnectRetry<>(r, 3).connect(new FakeQp(0), s));
    assertTrue(thrown.getCause() instanceof MpaException);
    assertEquals(3, s.tried.size());
    assertEquals(2, r.created);
    // The QP of the last attempt is not released here: it stays with the session (closed with
    // the device), like the first QP after a final failure.
    assertEquals(2, r.released.size());
  }

  @Test
  void atLeastOneAttempt() {
    assertThrows(IllegalArgumentException.class, () -> new DataConnectRetry<>(new Recorder(), 0));
  }
}
