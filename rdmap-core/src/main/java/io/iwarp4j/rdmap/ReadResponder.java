package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.GatherList;
import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagCheck;
import io.iwarp4j.ddp.mem.StagTable;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Data Source side of RDMA Read (RFC 5040 §5.2): validates each delivered Read Request
 * (§7.2 items 4a-4e, unless its size is 0), answers it at once with a Read Response (tagged,
 * opcode 2, to the requester's sink STag/TO) cut by DDP from our registered memory without a
 * copy, and keeps the source region pinned until the transport has taken the last octet of the
 * response. Requests are answered in the order they were delivered (§5.2.2), so responses go to
 * DDP in that order.
 *
 * <p><b>IRD.</b> A request is outstanding from its delivery until the transport took its
 * response. RFC 5040 models the IRD as the number of untagged buffers on the Read Request queue
 * (QN 1): "One RDMA Read Request Message MUST consume one Untagged Buffer" (§5.2.1), and the Data
 * Source provides as many as it negotiated (§5.2.2). A request that arrives while IRD are
 * outstanding therefore finds no buffer: it is reported as DDP's "Invalid MSN - no buffer
 * available" (Layer 1, EType 2, code 0x02), echoing the request's DDP header. (Linux siw reports
 * 0/2/0x07 instead; both end the stream.)
 *
 * <p><b>Pins.</b> A region with a response in flight is pinned ({@link MemoryRegion#tryPin}):
 * deregistering it waits for the pin, so its memory is never released while the transport may
 * still read it. Each response's transmit sequence number is kept; {@link #retire} unpins every
 * response the transport took (a released {@link TransportBarrier}), {@link #releaseAll} the rest
 * once the channel is closed.
 *
 * <p>A ring of IRD slots and one reused gather list: nothing is allocated per request for pooled
 * memory. Event-loop confined.
 */
final class ReadResponder {
  private static final Logger log = LoggerFactory.getLogger(ReadResponder.class);
  private static final int READ_RESPONSE = RdmapControl.encode(RdmapOpcode.RDMA_READ_RESPONSE);

  private final DdpStream stream;
  private final StagTable stags;
  private final ProtectionDomain pd;
  private final int ird;
  private final int mask;
  /** The pinned source of each response in flight; null for a zero-length response. */
  private final MemoryRegion[] regions;
  private final long[] txSeqs;
  private final GatherList source = new GatherList(1);
  private long head;
  private long tail;

  /** The error of the last {@link #respond} that failed. */
  private RdmapError error;

  ReadResponder(DdpStream stream, int ird) {
    if (ird < 0) {
      throw new IllegalArgumentException("IRD " + ird + " is negative");
    }
    this.stream = stream;
    this.pd = stream.protectionDomain();
    this.stags = pd.table();
    this.ird = ird;
    int n = RingSize.powerOfTwoAtLeast(Math.max(1, ird));
    mask = n - 1;
    regions = new MemoryRegion[n];
    txSeqs = new long[n];
  }

  /** Requests delivered whose response the transport has not taken yet. */
  int outstanding() {
    return (int) (tail - head);
  }

  /** Why the last {@link #respond} returned false. */
  RdmapError error() {
    return error;
  }

  /**
   * Validates the Read Request whose 28 octets are {@code request}'s readable bytes and sends its
   * Read Response as transmit message {@code txSeq} (not flushed). The caller checked the IRD.
   *
   * @return true when the response was sent; false when the request is invalid
   *     ({@link #error()} says why; nothing was sent)
   */
  boolean respond(ByteBuf request, long txSeq) {
    // The readable bytes are the RDMAP header; the codec counts from the DDP header before it.
    int ddpStart = request.readerIndex() - ReadRequestHeader.START_OFFSET;
    int sinkStag = ReadRequestHeader.sinkStag(request, ddpStart);
    long sinkTo = ReadRequestHeader.sinkTo(request, ddpStart);
    long size = Integer.toUnsignedLong(ReadRequestHeader.readSize(request, ddpStart));
    int srcStag = ReadRequestHeader.srcStag(request, ddpStart);
    long srcTo = ReadRequestHeader.srcTo(request, ddpStart);
    if (size == 0) {
      // §5.2.1: a zero-length request's source is not validated; the answer is zero-length.
      stream.sendTagged(READ_RESPONSE, sinkStag, sinkTo, null);
      add(null, txSeq);
      debugResponse(sinkStag, sinkTo, 0, srcStag, srcTo);
      return true;
    }
    MemoryRegion region = stags.lookup(srcStag);
    StagCheck check = region == null ? StagCheck.INVALID_STAG
        : region.check(srcTo, size, AccessFlags.REMOTE_READ, pd);
    if (check != StagCheck.OK) {
      return fail(RdmapError.forReadSource(check));
    }
    if (Long.compareUnsigned(sinkTo + size - 1, sinkTo) < 0) {
      // The response could not be cut: its TOs would wrap the requester's TO space.
      return fail(RdmapError.TO_WRAP);
    }
    if (!region.tryPin()) {
      // Invalidated (on another thread) between the check and the pin.
      return fail(RdmapError.INVALID_STAG);
    }
    ByteBuf slice;
    try {
      slice = region.retainedSlice(srcTo, (int) size);
    } catch (RuntimeException e) {
      region.unpin();
      throw e;
    }
    try {
      source.add(slice);
      stream.sendTagged(READ_RESPONSE, sinkStag, sinkTo, source);
    } catch (RuntimeException e) {
      region.unpin();
      throw e;
    } finally {
      source.clear();
      // The segmenter took its own slices; ours only carried the range.
      slice.release();
    }
    add(region, txSeq);
    debugResponse(sinkStag, sinkTo, size, srcStag, srcTo);
    return true;
  }

  private boolean fail(RdmapError e) {
    error = e;
    return false;
  }

  /**
   * Counts an answered Atomic Request against the IRD (RFC 7306 §5.2: Atomic and Read Requests
   * share it) until the transport took its Atomic Response, transmit message {@code txSeq}. The
   * caller checked the IRD (RdmapEndpoint counts answered and waiting requests).
   */
  void trackAtomicResponse(long txSeq) {
    add(null, txSeq);
  }

  private void add(MemoryRegion region, long txSeq) {
    if (tail - head == regions.length) {
      throw new IllegalStateException("more than IRD " + ird + " Read Responses in flight");
    }
    int i = (int) tail & mask;
    regions[i] = region;
    txSeqs[i] = txSeq;
    tail++;
  }

  /** Unpins the sources of every response with a transmit sequence number below {@code taken}. */
  void retire(long taken) {
    while (head < tail) {
      int i = (int) head & mask;
      if (txSeqs[i] >= taken) {
        return;
      }
      unpinSlot(i);
      head++;
    }
  }

  /** Unpins every source still pinned: the channel is closed, nothing more is read from them. */
  void releaseAll() {
    while (head < tail) {
      unpinSlot((int) head & mask);
      head++;
    }
  }

  private void unpinSlot(int i) {
    MemoryRegion r = regions[i];
    if (r != null) {
      regions[i] = null;
      r.unpin();
    }
  }

  private void debugResponse(int sinkStag, long sinkTo, long size, int srcStag, long srcTo) {
    if (log.isDebugEnabled()) {
      log.debug("{} Read Response: {} octets from STag 0x{} TO 0x{} to STag 0x{} TO 0x{}",
          stream.channel(), size, Integer.toHexString(srcStag), Long.toHexString(srcTo),
          Integer.toHexString(sinkStag), Long.toHexString(sinkTo));
    }
  }
}
