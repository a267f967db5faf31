package io.iwarp4j.mpa;

import java.util.concurrent.atomic.LongAdder;

/**
 * Debug counters of every place the data path copies payload octets, for tests that prove the
 * copy budget (0 copies on send but for Read Response snapshots, exactly 1 per octet on receive). Off unless the JVM runs with
 * {@code -Diwarp4j.debug.copyCount=true}; {@link #ENABLED} is a {@code static final} constant, so
 * with counting off the JIT folds every {@code if (CopyCounters.ENABLED)} away.
 *
 * <p>The counters are global to the JVM (all connections, all threads): a test resets them, runs
 * its operations, waits until they completed, then reads them.
 *
 * <ul>
 *   <li>{@link #sendCopied()}: payload octets copied on the way out. The library copies only the
 *       source of a Read Response with CRC on (a snapshot, so a racing Write cannot make the
 *       octets sent differ from their CRC: rdmap-core's ReadResponder counts it); the framer
 *       counts payload pieces the transport would have to copy because they are not in direct
 *       memory (Netty copies heap buffers into direct ones before a socket write).
 *   <li>{@link #receivePlaced()}: payload octets copied from the socket buffers into application
 *       memory (a registered region for tagged segments, a posted receive buffer for queue 0).
 *   <li>{@link #receiveStaged()}: ULPDU octets the deframer copied into a staging buffer because
 *       an FPDU arrived in more than {@link FpduDeframer#MAX_HELD_BUFFERS} reads.
 *   <li>{@link #controlCopied()}: octets of RDMAP control messages (Read Requests, Terminates,
 *       RFC 7306 requests) copied into buffers the stream owns; not payload.
 * </ul>
 */
public final class CopyCounters {
  /** Whether counting is on: {@code -Diwarp4j.debug.copyCount=true}. */
  public static final boolean ENABLED = Boolean.getBoolean("iwarp4j.debug.copyCount");

  private static final LongAdder SEND_COPIED = new LongAdder();
  private static final LongAdder RECEIVE_PLACED = new LongAdder();
  private static final LongAdder RECEIVE_STAGED = new LongAdder();
  private static final LongAdder CONTROL_COPIED = new LongAdder();
  private static final LongAdder SEND_INLINED = new LongAdder();

  private CopyCounters() {
  }

  /**
   * Counts payload octets copied on the send side. Call only when {@link #ENABLED}.
   *
   * @param octets the octets copied
   */
  public static void sendCopied(long octets) {
    SEND_COPIED.add(octets);
  }

  /**
   * Counts payload octets of small FPDUs copied into the outgoing buffer behind their header
   * (FpduFramer.INLINE_THRESHOLD): the deliberate send copy. Call only when {@link #ENABLED}.
   *
   * @param octets the octets copied
   */
  public static void sendInlined(long octets) {
    SEND_INLINED.add(octets);
  }

  /**
   * Payload octets copied inline on the send side since the last {@link #reset()}.
   *
   * @return payload octets copied inline on the send side since the last {@link #reset()}
   */
  public static long sendInlined() {
    return SEND_INLINED.sum();
  }

  /**
   * Counts payload octets placed into application memory. Call only when {@link #ENABLED}.
   *
   * @param octets the octets copied
   */
  public static void receivePlaced(long octets) {
    RECEIVE_PLACED.add(octets);
  }

  /**
   * Counts ULPDU octets staged by the deframer. Call only when {@link #ENABLED}.
   *
   * @param octets the octets copied
   */
  static void receiveStaged(long octets) {
    RECEIVE_STAGED.add(octets);
  }

  /**
   * Counts control-message octets copied into stream-owned buffers. Call only when
   * {@link #ENABLED}.
   *
   * @param octets the octets copied
   */
  public static void controlCopied(long octets) {
    CONTROL_COPIED.add(octets);
  }

  /**
   * Payload octets copied on the send side since the last {@link #reset()}.
   *
   * @return payload octets copied on the send side since the last {@link #reset()}
   */
  public static long sendCopied() {
    return SEND_COPIED.sum();
  }

  /**
   * Payload octets copied into application memory since the last {@link #reset()}.
   *
   * @return payload octets copied into application memory since the last {@link #reset()}
   */
  public static long receivePlaced() {
    return RECEIVE_PLACED.sum();
  }

  /**
   * ULPDU octets the deframer staged since the last {@link #reset()}.
   *
   * @return ULPDU octets the deframer staged since the last {@link #reset()}
   */
  public static long receiveStaged() {
    return RECEIVE_STAGED.sum();
  }

  /**
   * Control-message octets copied since the last {@link #reset()}.
   *
   * @return control-message octets copied since the last {@link #reset()}
   */
  public static long controlCopied() {
    return CONTROL_COPIED.sum();
  }

  /** Sets every counter to zero. */
  public static void reset() {
    SEND_COPIED.reset();
    RECEIVE_PLACED.reset();
    RECEIVE_STAGED.reset();
    CONTROL_COPIED.reset();
    SEND_INLINED.reset();
  }

  /**
   * All counters in one line, for assertion messages.
   *
   * @return all counters in one line, for assertion messages
   */
  public static String summary() {
    return "CopyCounters{send=" + sendCopied() + ", placed=" + receivePlaced() + ", staged="
        + receiveStaged() + ", control=" + controlCopied() + ", inlined=" + sendInlined() + "}";
  }
}
