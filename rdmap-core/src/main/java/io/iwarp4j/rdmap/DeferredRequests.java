package io.iwarp4j.rdmap;

import io.iwarp4j.wire.AtomicRequestHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Inbound Read and Atomic Requests (QN 1) that were delivered but must wait before they are
 * answered, oldest first. An Atomic waits until every earlier zero-copy Read Response has been
 * taken by the transport: such a response is cut from registered memory without a copy, so an
 * Atomic performed while its octets are still queued would change what it carries (after its CRC
 * was computed), and RFC 7306 §7 wants the Atomic performed after the preceding Read Response was
 * generated. A Read Response sent from a snapshot (CRC on, see {@link ReadResponder}) already
 * holds its octets: an Atomic behind it need not wait.
 * Requests delivered after a waiting one wait behind it, so responses still leave in request
 * order (RFC 5040 §5.2.2, RFC 7306 §5.2.1 rule 7).
 *
 * <p>Each entry keeps a copy of the request's octets and of the DDP header a Terminate would
 * echo. Slots are made on first use and reused; at most IRD entries exist, since a waiting
 * request counts against the IRD. Event-loop confined.
 */
final class DeferredRequests {
  private final int mask;
  private final boolean[] atomic;
  private final ByteBuf[] requests;
  private final TerminatedSegment[] segments;
  private long head;
  private long tail;

  /** @param ird the inbound request depth: the most requests that can wait */
  DeferredRequests(int ird) {
    int n = RingSize.powerOfTwoAtLeast(Math.max(1, ird));
    mask = n - 1;
    atomic = new boolean[n];
    requests = new ByteBuf[n];
    segments = new TerminatedSegment[n];
  }

  /** Requests waiting. */
  int size() {
    return (int) (tail - head);
  }

  boolean isEmpty() {
    return head == tail;
  }

  /**
   * Queues a copy of a delivered request (its readable bytes) and of what its Terminate would
   * echo.
   *
   * @throws IllegalStateException when the ring is full (the caller checks the IRD first)
   */
  void add(boolean isAtomic, ByteBuf request, TerminatedSegment failed) {
    if (tail - head > mask) {
      throw new IllegalStateException("more inbound requests waiting than the IRD allows");
    }
    int i = (int) tail & mask;
    if (requests[i] == null) {
      requests[i] = Unpooled.wrappedBuffer(new byte[AtomicRequestHeader.LENGTH]);
      segments[i] = new TerminatedSegment();
    }
    ByteBuf copy = requests[i].clear();
    copy.writeBytes(request, request.readerIndex(), request.readableBytes());
    segments[i].copyFrom(failed);
    atomic[i] = isAtomic;
    tail++;
  }

  /** Whether the oldest waiting request is an Atomic; only when not empty. */
  boolean headIsAtomic() {
    return atomic[(int) head & mask];
  }

  /** The oldest waiting request's octets, as readable bytes; only when not empty. */
  ByteBuf headRequest() {
    return requests[(int) head & mask];
  }

  /** What a Terminate for the oldest waiting request echoes; only when not empty. */
  TerminatedSegment headSegment() {
    return segments[(int) head & mask];
  }

  /** Forgets the oldest waiting request. */
  void removeHead() {
    head++;
  }

  /** Forgets every waiting request: the stream ended. */
  void clear() {
    head = tail;
  }
}
