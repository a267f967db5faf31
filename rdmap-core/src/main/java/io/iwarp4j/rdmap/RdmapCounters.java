package io.iwarp4j.rdmap;

import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.TerminateMessage;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The traffic and error counters of one RDMAP stream (one queue pair): messages and octets sent
 * and received per RDMAP opcode, Terminates sent and received by layer/type/code, flushed work
 * requests, error completions and error events, and how Read Responses were sourced (snapshot or
 * zero-copy fallback, see ReadResponder).
 *
 * <h2>Threads</h2>
 * One thread writes: the connection's event loop (or, before a queue pair is bound to one, the
 * only thread that touches it). It increments plain array elements and publishes each with a
 * release store, so it takes no lock and allocates nothing. Any thread may read through
 * {@link #addTo(long[])}, which loads each element with acquire semantics: every value it sees is
 * one the writer stored (a 64-bit value is never torn), though values of different elements may
 * belong to slightly different moments.
 *
 * <h2>Layout</h2>
 * The values live in one {@code long[]} of {@link #LENGTH} elements, indexed by the constants of
 * this class: {@code TX_MESSAGES + opcode code} and so on for the four per-opcode rows, the three
 * error counters, then two Terminate tables of {@link #TERMINATE_SLOTS} slots each
 * ({@link #terminateSlot}), then the two Read Response source counters. Octets are the RDMAP
 * message's octets after the DDP header: the payload of a Write, Read Response or Send, the
 * 28-octet Read Request header, the 52-octet Atomic Request, the 12-octet Atomic Response, the 8
 * octets of Immediate Data, the Terminate header with what it echoes.
 */
public final class RdmapCounters {
  /** How many opcode codes each per-opcode row has (0x0-0xB: RFC 5040 and RFC 7306). */
  public static final int OPCODES = 12;
  /** Row start: messages sent, by opcode code. */
  public static final int TX_MESSAGES = 0;
  /** Row start: octets sent, by opcode code. */
  public static final int TX_OCTETS = TX_MESSAGES + OPCODES;
  /** Row start: messages received, by opcode code. */
  public static final int RX_MESSAGES = TX_OCTETS + OPCODES;
  /** Row start: octets received, by opcode code. */
  public static final int RX_OCTETS = RX_MESSAGES + OPCODES;
  /** Work requests completed with a flush status. */
  public static final int FLUSHED = RX_OCTETS + OPCODES;
  /** Work requests completed with an error status other than a flush. */
  public static final int ERROR_COMPLETIONS = FLUSHED + 1;
  /** Asynchronous error events reported for the queue pair. */
  public static final int ERROR_EVENTS = ERROR_COMPLETIONS + 1;
  /** Layers a Terminate table distinguishes: 0 RDMAP, 1 DDP, 2 LLP (MPA). */
  public static final int TERMINATE_LAYERS = TerminateMessage.LAYER_LLP + 1;
  /** Error Types per layer a Terminate table distinguishes (0-2, as RFC 5040 §4.8 defines). */
  public static final int TERMINATE_TYPES = 3;
  /**
   * Error Codes per layer and type a Terminate table distinguishes: 0x00-0x09 (every code RFC
   * 5040, RFC 5041, RFC 5044 and RFC 6581 define, but 0xFF) and 0xFF (the last one).
   */
  public static final int TERMINATE_CODES = 11;
  /**
   * Slots of one Terminate table: every layer/type/code combination above, plus one last slot
   * for any other triple (a peer's code outside RFC 5040's code space).
   */
  public static final int TERMINATE_SLOTS =
      TERMINATE_LAYERS * TERMINATE_TYPES * TERMINATE_CODES + 1;
  /** Table start: Terminates sent, by {@link #terminateSlot}. */
  public static final int TERMINATES_SENT = ERROR_EVENTS + 1;
  /** Table start: Terminates received, by {@link #terminateSlot}. */
  public static final int TERMINATES_RECEIVED = TERMINATES_SENT + TERMINATE_SLOTS;
  /** Read Responses sent from a snapshot of their source (CRC on; see ReadResponder). */
  public static final int READ_RESPONSE_SNAPSHOTS = TERMINATES_RECEIVED + TERMINATE_SLOTS;
  /**
   * Read Responses sent zero-copy although CRC is on, because the device's Read Response copy
   * budget (or direct memory) could not take their snapshot.
   */
  public static final int READ_RESPONSE_ZERO_COPY_FALLBACKS = READ_RESPONSE_SNAPSHOTS + 1;
  /** Elements of the counter array. */
  public static final int LENGTH = READ_RESPONSE_ZERO_COPY_FALLBACKS + 1;

  private static final VarHandle ELEMENT = MethodHandles.arrayElementVarHandle(long[].class);

  /** First index after the two Terminate tables. */
  private static final int AFTER_TERMINATES = TERMINATES_RECEIVED + TERMINATE_SLOTS;

  /** Every counter but the Terminate tables (indexes past them shifted down). */
  private final long[] values = new long[LENGTH - 2 * TERMINATE_SLOTS];
  /**
   * The two Terminate tables (sent, received), made by the one writer on its first Terminate:
   * most queue pairs never see one, and the tables are most of the counters' octets.
   */
  private volatile long[] terminates;

  /**
   * The slot of a layer/type/code triple in a Terminate table: the triple's own slot when each
   * part lies in the table's range, else the last slot ("other").
   *
   * @param layer the Terminate's Layer
   * @param errorType its Error Type
   * @param errorCode its Error Code
   * @return 0 to {@link #TERMINATE_SLOTS} - 1
   */
  public static int terminateSlot(int layer, int errorType, int errorCode) {
    int code = errorCode == 0xFF ? TERMINATE_CODES - 1 : errorCode;
    if (layer < 0 || layer >= TERMINATE_LAYERS || errorType < 0 || errorType >= TERMINATE_TYPES
        || code < 0 || code >= TERMINATE_CODES || errorCode == TERMINATE_CODES - 1) {
      return TERMINATE_SLOTS - 1;
    }
    return (layer * TERMINATE_TYPES + errorType) * TERMINATE_CODES + code;
  }

  /**
   * Counts a message this end handed to DDP.
   *
   * @param opcode its opcode
   * @param octets its octets after the DDP header
   */
  public void sent(RdmapOpcode opcode, long octets) {
    add(TX_MESSAGES + opcode.code(), 1);
    add(TX_OCTETS + opcode.code(), octets);
  }

  /**
   * Counts a message DDP delivered (or, for a tagged message, placed whole).
   *
   * @param opcode its opcode
   * @param octets its octets after the DDP header
   */
  public void received(RdmapOpcode opcode, long octets) {
    add(RX_MESSAGES + opcode.code(), 1);
    add(RX_OCTETS + opcode.code(), octets);
  }

  /**
   * Counts a Terminate this end sent, in its opcode row and its code table.
   *
   * @param layer its Layer
   * @param errorType its Error Type
   * @param errorCode its Error Code
   * @param octets its octets after the DDP header
   */
  public void terminateSent(int layer, int errorType, int errorCode, long octets) {
    sent(RdmapOpcode.TERMINATE, octets);
    add(TERMINATES_SENT + terminateSlot(layer, errorType, errorCode), 1);
  }

  /**
   * Counts a Terminate received from the peer in its code table (its opcode row counts when it
   * is delivered, see {@link #received}).
   *
   * @param layer its Layer
   * @param errorType its Error Type
   * @param errorCode its Error Code
   */
  public void terminateReceived(int layer, int errorType, int errorCode) {
    add(TERMINATES_RECEIVED + terminateSlot(layer, errorType, errorCode), 1);
  }

  /**
   * Counts work requests completed with a flush status.
   *
   * @param n how many
   */
  public void flushed(long n) {
    add(FLUSHED, n);
  }

  /** Counts one work request completed with an error status other than a flush. */
  public void errorCompletion() {
    add(ERROR_COMPLETIONS, 1);
  }

  /** Counts one asynchronous error event. */
  public void errorEvent() {
    add(ERROR_EVENTS, 1);
  }

  /** Counts one Read Response sent from a snapshot of its source. */
  public void readResponseSnapshot() {
    add(READ_RESPONSE_SNAPSHOTS, 1);
  }

  /** Counts one Read Response sent zero-copy although CRC is on (no budget for a snapshot). */
  public void readResponseZeroCopyFallback() {
    add(READ_RESPONSE_ZERO_COPY_FALLBACKS, 1);
  }

  /**
   * The current value of one counter (acquire load), for tests and logs.
   *
   * @param index an index built from this class's constants
   * @return the value
   */
  public long get(int index) {
    if (index >= TERMINATES_SENT && index < AFTER_TERMINATES) {
      long[] t = terminates;
      return t == null ? 0 : (long) ELEMENT.getAcquire(t, index - TERMINATES_SENT);
    }
    return (long) ELEMENT.getAcquire(values, valueIndex(index));
  }

  private static int valueIndex(int index) {
    return index < TERMINATES_SENT ? index : index - 2 * TERMINATE_SLOTS;
  }

  /**
   * Adds every counter into {@code into}, element by element (acquire loads). Allocates nothing.
   *
   * @param into an array of at least {@link #LENGTH} elements
   */
  public void addTo(long[] into) {
    for (int i = 0; i < LENGTH; i++) {
      into[i] += get(i);
    }
  }

  private void add(int index, long delta) {
    long[] array;
    int i;
    if (index >= TERMINATES_SENT && index < AFTER_TERMINATES) {
      array = terminates;
      if (array == null) {
        array = new long[2 * TERMINATE_SLOTS];
        terminates = array; // volatile: readers see a zeroed table
      }
      i = index - TERMINATES_SENT;
    } else {
      array = values;
      i = valueIndex(index);
    }
    // Single writer: a plain read of its own last store, then a release store for readers.
    ELEMENT.setRelease(array, i, (long) ELEMENT.get(array, i) + delta);
  }
}
