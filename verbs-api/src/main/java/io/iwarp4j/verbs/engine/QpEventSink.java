package io.iwarp4j.verbs.engine;

import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.TerminateInfo;

/** Where a {@link QueuePair} reports that it moved to ERROR: its connection. Event loop only. */
public interface QpEventSink {

  /**
   * The queue pair is in ERROR and has flushed its work requests (or a further Terminate
   * arrived after that).
   *
   * @param terminate the Terminate involved, or null (disconnect, overrun, local error)
   * @param reason a readable cause
   */
  void onQpError(QueuePair qp, TerminateInfo terminate, String reason);
}
