package io.iwarp4j.verbs;

import io.iwarp4j.rdmap.RdmapCounters;

/**
 * A caller-owned copy of a queue pair's or a device's counters, filled by
 * {@link QueuePair#counters(CountersSnapshot)} or {@link RdmaDevice#counters(CountersSnapshot)}.
 * Create one and reuse it: filling it and reading it allocate nothing, so it can be polled from a
 * metrics thread at any rate.
 *
 * <pre>{@code
 * CountersSnapshot c = new CountersSnapshot();
 * qp.counters(c);
 * long written = c.octetsSent(RdmapMessageType.RDMA_WRITE);
 * long flushed = c.flushedWorkRequests();
 * }</pre>
 *
 * <h2>What is counted</h2>
 * <ul>
 *   <li>Messages and octets per {@link RdmapMessageType}, sent and received. A message is sent
 *       when this end hands it to DDP (a Read Response when it answers the Read Request, an
 *       Atomic Response when it performed the Atomic), received when DDP delivers it (a tagged
 *       message: when its last segment was placed). Octets are the message's octets after the
 *       DDP header: the payload of a Write, Read Response or Send; 28 for a Read Request (its
 *       RDMAP header), 52 for an Atomic Request, 12 for an Atomic Response, 8 for Immediate
 *       Data; for a Terminate its header and the headers it echoes.</li>
 *   <li>Terminates sent and received by Layer, Error Type and Error Code (RFC 5040 §4.8): a table
 *       for layers 0-2, types 0-2 and codes 0x00-0x09 and 0xFF (every code the RFCs define);
 *       any other triple is counted in
 *       {@link #otherTerminatesSent()} / {@link #otherTerminatesReceived()}.</li>
 *   <li>Flushed work requests (status {@link WcStatus#WR_FLUSH_ERR}), error completions (any
 *       other non-success status) and error events (ERROR connection events).</li>
 * </ul>
 *
 * <h2>Consistency</h2>
 * The counters are written by the connection's event loop without locks and read with acquire
 * loads: each value is one the event loop stored, but values of different counters may be a few
 * operations apart when traffic is flowing. A device's counters are its live queue pairs' plus
 * those of the queue pairs destroyed so far (folded in when a queue pair is closed).
 *
 * <p>Not thread-safe: one snapshot per reading thread.
 */
public final class CountersSnapshot {
  private static final RdmapMessageType[] TYPES = RdmapMessageType.values();

  private final long[] values = new long[RdmapCounters.LENGTH];
  private long loopWakeUps;
  private long pollerWakeUps;

  /** Creates an empty snapshot (every counter 0). */
  public CountersSnapshot() {
  }

  /** Sets every counter to 0. */
  public void clear() {
    java.util.Arrays.fill(values, 0);
    loopWakeUps = 0;
    pollerWakeUps = 0;
  }

  /** The backing array, filled by the queue pair or device. */
  long[] values() {
    return values;
  }

  /**
   * Messages of {@code type} sent.
   *
   * @param type the message type
   * @return the count
   */
  public long messagesSent(RdmapMessageType type) {
    return values[RdmapCounters.TX_MESSAGES + type.code()];
  }

  /**
   * Octets (after the DDP header) of messages of {@code type} sent.
   *
   * @param type the message type
   * @return the count
   */
  public long octetsSent(RdmapMessageType type) {
    return values[RdmapCounters.TX_OCTETS + type.code()];
  }

  /**
   * Messages of {@code type} received.
   *
   * @param type the message type
   * @return the count
   */
  public long messagesReceived(RdmapMessageType type) {
    return values[RdmapCounters.RX_MESSAGES + type.code()];
  }

  /**
   * Octets (after the DDP header) of messages of {@code type} received.
   *
   * @param type the message type
   * @return the count
   */
  public long octetsReceived(RdmapMessageType type) {
    return values[RdmapCounters.RX_OCTETS + type.code()];
  }

  /**
   * Messages of every type sent.
   *
   * @return the sum over {@link RdmapMessageType}
   */
  public long messagesSent() {
    return sum(RdmapCounters.TX_MESSAGES);
  }

  /**
   * Octets of every message type sent.
   *
   * @return the sum over {@link RdmapMessageType}
   */
  public long octetsSent() {
    return sum(RdmapCounters.TX_OCTETS);
  }

  /**
   * Messages of every type received.
   *
   * @return the sum over {@link RdmapMessageType}
   */
  public long messagesReceived() {
    return sum(RdmapCounters.RX_MESSAGES);
  }

  /**
   * Octets of every message type received.
   *
   * @return the sum over {@link RdmapMessageType}
   */
  public long octetsReceived() {
    return sum(RdmapCounters.RX_OCTETS);
  }

  /**
   * Terminates sent with this Layer, Error Type and Error Code.
   *
   * @param layer 0 RDMAP, 1 DDP, 2 LLP (MPA)
   * @param errorType the Error Type, 0 to 2
   * @param errorCode the Error Code, 0x00 to 0x09 or 0xFF
   * @return the count
   * @throws IllegalArgumentException for a triple outside the table (see
   *     {@link #otherTerminatesSent()})
   */
  public long terminatesSent(int layer, int errorType, int errorCode) {
    return values[RdmapCounters.TERMINATES_SENT + slot(layer, errorType, errorCode)];
  }

  /**
   * Terminates received with this Layer, Error Type and Error Code.
   *
   * @param layer 0 RDMAP, 1 DDP, 2 LLP (MPA)
   * @param errorType the Error Type, 0 to 2
   * @param errorCode the Error Code, 0x00 to 0x09 or 0xFF
   * @return the count
   * @throws IllegalArgumentException for a triple outside the table (see
   *     {@link #otherTerminatesReceived()})
   */
  public long terminatesReceived(int layer, int errorType, int errorCode) {
    return values[RdmapCounters.TERMINATES_RECEIVED + slot(layer, errorType, errorCode)];
  }

  /**
   * Terminates sent whose layer/type/code lies outside the table.
   *
   * @return the count
   */
  public long otherTerminatesSent() {
    return values[RdmapCounters.TERMINATES_SENT + RdmapCounters.TERMINATE_SLOTS - 1];
  }

  /**
   * Terminates received whose layer/type/code lies outside the table (a peer's unknown code).
   *
   * @return the count
   */
  public long otherTerminatesReceived() {
    return values[RdmapCounters.TERMINATES_RECEIVED + RdmapCounters.TERMINATE_SLOTS - 1];
  }

  /**
   * Work requests completed with {@link WcStatus#WR_FLUSH_ERR}.
   *
   * @return the count
   */
  public long flushedWorkRequests() {
    return values[RdmapCounters.FLUSHED];
  }

  /**
   * Work requests completed with an error status other than a flush.
   *
   * @return the count
   */
  public long errorCompletions() {
    return values[RdmapCounters.ERROR_COMPLETIONS];
  }

  /**
   * Error events: ERROR connection events reported for the queue pair(s) (a Terminate sent or
   * received, a lost connection, a local error).
   *
   * @return the count
   */
  public long errorEvents() {
    return values[RdmapCounters.ERROR_EVENTS];
  }

  /**
   * Read Responses this end sent from a snapshot of their source (CRC on: see
   * {@link DeviceConfig#readResponseCopyBudget()}).
   *
   * @return the count
   */
  public long readResponseSnapshots() {
    return values[RdmapCounters.READ_RESPONSE_SNAPSHOTS];
  }

  /**
   * Read Responses this end sent without a snapshot although CRC was on, because the device's
   * Read Response copy budget (or direct memory) could not take it: an RDMA Write racing such a
   * Read can still end the reader's connection with a CRC error.
   *
   * @return the count
   */
  public long readResponseZeroCopyFallbacks() {
    return values[RdmapCounters.READ_RESPONSE_ZERO_COPY_FALLBACKS];
  }

  /**
   * Device only (0 in a queue pair's snapshot): how many times an application thread posting a
   * work request handed an event loop a drain task, each of which wakes the loop if it sleeps
   * (an eventfd write in {@link PollMode#PARKED}; nothing to wake when it busy-polls). Posts
   * that find a drain already scheduled or running for the queue pair count nothing.
   *
   * @return the count since the device was opened
   */
  public long loopWakeUps() {
    return loopWakeUps;
  }

  /**
   * Device only (0 in a queue pair's snapshot): how many times an event loop unparked a thread
   * waiting in {@link CompletionQueue#await} or {@link CompletionChannel#awaitEvent} on the
   * device's queues and channels. A thread that finds its completion while spinning
   * ({@link PollMode#BUSY_POLL}) or polling is not counted.
   *
   * @return the count since the device was opened
   */
  public long pollerWakeUps() {
    return pollerWakeUps;
  }

  /** Set by the device with its counters. */
  void wakeUps(long loop, long poller) {
    loopWakeUps = loop;
    pollerWakeUps = poller;
  }

  private long sum(int row) {
    long n = 0;
    for (int i = 0; i < RdmapCounters.OPCODES; i++) {
      n += values[row + i];
    }
    return n;
  }

  private static int slot(int layer, int errorType, int errorCode) {
    int slot = RdmapCounters.terminateSlot(layer, errorType, errorCode);
    if (slot == RdmapCounters.TERMINATE_SLOTS - 1) {
      throw new IllegalArgumentException("Terminate " + layer + "/" + errorType + "/0x"
          + Integer.toHexString(errorCode) + " is outside the counted table (layers 0-2, types"
          + " 0-2, codes 0x00-0x09 and 0xFF); see otherTerminatesSent/Received");
    }
    return slot;
  }

  /**
   * Every non-zero counter, for logs (allocates).
   *
   * @return e.g. {@code {sent RDMA_WRITE=3/12288, received SEND=1/64, flushed=2}}
   */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("{");
    for (RdmapMessageType t : TYPES) {
      append(b, "sent " + t, messagesSent(t), octetsSent(t));
      append(b, "received " + t, messagesReceived(t), octetsReceived(t));
    }
    for (int i = 0; i < RdmapCounters.TERMINATE_SLOTS; i++) {
      append(b, "terminates sent " + slotName(i), values[RdmapCounters.TERMINATES_SENT + i], -1);
      append(b, "terminates received " + slotName(i),
          values[RdmapCounters.TERMINATES_RECEIVED + i], -1);
    }
    append(b, "flushed", flushedWorkRequests(), -1);
    append(b, "errorCompletions", errorCompletions(), -1);
    append(b, "errorEvents", errorEvents(), -1);
    append(b, "loopWakeUps", loopWakeUps, -1);
    append(b, "pollerWakeUps", pollerWakeUps, -1);
    append(b, "readResponseSnapshots", readResponseSnapshots(), -1);
    append(b, "readResponseZeroCopyFallbacks", readResponseZeroCopyFallbacks(), -1);
    return b.append('}').toString();
  }

  /**
   * The name of a Terminate table slot: {@code layer/type/0xcode}, or {@code other}.
   *
   * @param slot 0 to {@code RdmapCounters.TERMINATE_SLOTS - 1}
   * @return the name
   */
  static String slotName(int slot) {
    if (slot == RdmapCounters.TERMINATE_SLOTS - 1) {
      return "other";
    }
    int code = slot % RdmapCounters.TERMINATE_CODES;
    int rest = slot / RdmapCounters.TERMINATE_CODES;
    return rest / RdmapCounters.TERMINATE_TYPES + "/" + rest % RdmapCounters.TERMINATE_TYPES
        + "/0x" + Integer.toHexString(code == RdmapCounters.TERMINATE_CODES - 1 ? 0xFF : code);
  }

  /** Raw access for the MBean: a Terminate table value. */
  long terminateSlot(boolean sent, int slot) {
    return values[(sent ? RdmapCounters.TERMINATES_SENT : RdmapCounters.TERMINATES_RECEIVED)
        + slot];
  }

  private static void append(StringBuilder b, String name, long n, long octets) {
    if (n == 0) {
      return;
    }
    if (b.length() > 1) {
      b.append(", ");
    }
    b.append(name).append('=').append(n);
    if (octets >= 0) {
      b.append('/').append(octets);
    }
  }
}
