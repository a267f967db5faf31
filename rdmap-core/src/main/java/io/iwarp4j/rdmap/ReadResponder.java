package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.GatherList;
import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagCheck;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.mpa.CopyCounters;
import io.iwarp4j.wire.RdmapControl;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.ReadRequestHeader;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Data Source side of RDMA Read (RFC 5040 §5.2): validates each delivered Read Request
 * (§7.2 items 4a-4e, unless its size is 0) and answers it at once with a Read Response (tagged,
 * opcode 2, to the requester's sink STag/TO) cut by DDP from the source range. Requests are
 * answered in the order they were delivered (§5.2.2), so responses go to DDP in that order.
 *
 * <p><b>Snapshot or zero-copy.</b> MPA computes an FPDU's CRC when it frames it, but the socket
 * reads the octets later (writev from the outbound buffer). Sent straight from registered memory,
 * a response whose source an RDMA Write (from another connection, or a local store) changes in
 * between would leave with octets that no longer match its CRC, and the requester would end the
 * connection with an MPA CRC error. RFC 5040 only makes the data of such a Read undefined, never
 * the stream. So with CRC on, the response is a <em>snapshot</em>: the source range is copied
 * once, at respond time, into pooled direct memory (cut from the event loop's
 * {@link SnapshotSlabs}), the region is
 * unpinned at once, and DDP cuts the response from the copy; the CRC and the wire then always
 * agree (the data may be torn relative to concurrent Writes, which RFC 5040 allows). Each copy is
 * charged to the device's {@link ReadResponseCopyBudget} until the transport took the response;
 * when the budget cannot take it, the response goes zero-copy (counted, logged at debug), and
 * then the race above remains for that one response. With CRC off there is no CRC to disagree
 * with: responses are always zero-copy.
 *
 * <p><b>IRD.</b> A request is outstanding from its delivery until the transport took its
 * response. RFC 5040 models the IRD as the number of untagged buffers on the Read Request queue
 * (QN 1): "One RDMA Read Request Message MUST consume one Untagged Buffer" (§5.2.1), and the Data
 * Source provides as many as it negotiated (§5.2.2). A request that arrives while IRD are
 * outstanding therefore finds no buffer: it is reported as DDP's "Invalid MSN - no buffer
 * available" (Layer 1, EType 2, code 0x02), echoing the request's DDP header. (Linux siw reports
 * 0/2/0x07 instead; both end the stream.)
 *
 * <p><b>Pins and charges.</b> A region with a zero-copy response in flight is pinned
 * ({@link MemoryRegion#tryPin}): deregistering it waits for the pin, so its memory is never
 * released while the transport may still read it. A snapshot pins the region only while it
 * copies. Each response's transmit sequence number is kept; {@link #retire} unpins the source of,
 * and gives back the budget charged for, every response the transport took (a released
 * {@link TransportBarrier}), {@link #releaseAll} the rest once the channel is closed.
 *
 * <p>A ring of IRD slots and one reused gather list: nothing is allocated per request for pooled
 * memory (a snapshot is a recycled slice of a slab). Event-loop confined (the budget is the only shared state).
 */
final class ReadResponder {
  private static final Logger log = LoggerFactory.getLogger(ReadResponder.class);
  private static final int READ_RESPONSE = RdmapControl.encode(RdmapOpcode.RDMA_READ_RESPONSE);
  /** Entries the in-flight arrays hold at first (a power of two). */
  static final int INITIAL_SLOTS = 4;

  private final DdpStream stream;
  private final StagTable stags;
  private final ProtectionDomain pd;
  /** Where snapshots are charged; null when every response goes zero-copy (CRC off). */
  private final ReadResponseCopyBudget snapshots;
  private final RdmapCounters counters;
  private final int ird;
  /** Responses in flight the arrays may hold: the IRD rounded up to a power of two. */
  private final int maxSlots;
  // The arrays start with room for INITIAL_SLOTS and double, up to maxSlots, when a response
  // finds them full: an idle queue pair does not carry arrays sized by its IRD.
  private int mask;
  /** The pinned source of each zero-copy response in flight; null for the others. */
  private MemoryRegion[] regions;
  /** The octets each snapshot in flight charged to the budget; 0 for the others. */
  private long[] charged;
  private long[] txSeqs;
  private final GatherList source = new GatherList(1);
  private long head;
  private long tail;

  /** The error of the last {@link #respond} that failed. */
  private RdmapError error;
  /** Whether the last response sent carried payload straight from registered memory. */
  private boolean lastZeroCopy;

  /**
   * @param stream the stream responses go out on
   * @param ird how many responses may be outstanding
   * @param snapshots where snapshots are charged (the stream has CRC on), or null to send every
   *     response zero-copy (CRC off)
   * @param counters where snapshots and zero-copy fallbacks are counted
   */
  ReadResponder(DdpStream stream, int ird, ReadResponseCopyBudget snapshots,
      RdmapCounters counters) {
    if (ird < 0) {
      throw new IllegalArgumentException("IRD " + ird + " is negative");
    }
    this.stream = stream;
    this.pd = stream.protectionDomain();
    this.stags = pd.table();
    this.snapshots = snapshots;
    this.counters = counters;
    this.ird = ird;
    maxSlots = RingSize.powerOfTwoAtLeast(Math.max(1, ird));
    int n = Math.min(maxSlots, INITIAL_SLOTS);
    mask = n - 1;
    regions = new MemoryRegion[n];
    charged = new long[n];
    txSeqs = new long[n];
  }

  /** Doubles the arrays, keeping the responses in flight at their positions. */
  private void grow() {
    regions = RingArrays.doubled(regions, head, tail);
    charged = RingArrays.doubled(charged, head, tail);
    txSeqs = RingArrays.doubled(txSeqs, head, tail);
    mask = regions.length - 1;
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
   * Whether the last response {@link #respond} sent reads registered memory while the transport
   * has not taken it (zero-copy with payload): an Atomic on that memory must wait for it
   * (RFC 7306 §7). False for a snapshot and a zero-length response.
   */
  boolean lastZeroCopy() {
    return lastZeroCopy;
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
    lastZeroCopy = false;
    if (size == 0) {
      // §5.2.1: a zero-length request's source is not validated; the answer is zero-length.
      stream.sendTagged(READ_RESPONSE, sinkStag, sinkTo, null);
      add(null, 0, txSeq);
      debugResponse("", sinkStag, sinkTo, 0, srcStag, srcTo);
      return true;
    }
    MemoryRegion region = stags.lookup(srcStag);
    StagCheck check = region == null ? StagCheck.INVALID_STAG
        : region.check(srcTo, size, AccessFlags.REMOTE_READ, pd, stream);
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
    if (snapshots != null) {
      ByteBuf copy = snapshot(region, srcTo, (int) size);
      if (copy != null) {
        sendSnapshot(copy, sinkStag, sinkTo);
        add(null, size, txSeq);
        counters.readResponseSnapshot();
        debugResponse("snapshot ", sinkStag, sinkTo, size, srcStag, srcTo);
        return true;
      }
      counters.readResponseZeroCopyFallback();
      if (log.isDebugEnabled()) {
        log.debug("{} Read Response of {} octets sent without a snapshot ({})",
            stream.channel(), size, snapshots);
      }
    }
    sendZeroCopy(region, srcTo, (int) size, sinkStag, sinkTo);
    add(region, 0, txSeq);
    lastZeroCopy = true;
    debugResponse("zero-copy ", sinkStag, sinkTo, size, srcStag, srcTo);
    return true;
  }

  /**
   * Copies the pinned source range into pooled direct memory (a slice of this loop's
   * {@link SnapshotSlabs}, else a buffer of the channel's allocator of its own), charged to the
   * budget, and unpins the region: the copy is all the response reads from now on.
   *
   * @return the copy; null, the region still pinned and nothing charged, when the budget or
   *     direct memory cannot take it
   */
  private ByteBuf snapshot(MemoryRegion region, long srcTo, int size) {
    if (!snapshots.tryAcquire(size)) {
      return null;
    }
    ByteBuf copy = SnapshotSlabs.current().take(stream.channel().alloc(), size);
    if (copy == null) {
      // Larger than a slab, or every slab of this loop still in flight: a buffer of its own.
      try {
        copy = stream.channel().alloc().directBuffer(size, size).writerIndex(size);
      } catch (OutOfMemoryError e) {
        snapshots.release(size);
        log.debug("{} no direct memory for a Read Response snapshot of {} octets: {}",
            stream.channel(), size, e.toString());
        return null;
      }
    }
    try {
      ByteBuf slice = region.retainedSlice(srcTo, size);
      try {
        copy.setBytes(0, slice, slice.readerIndex(), size);
      } finally {
        slice.release();
      }
    } catch (RuntimeException e) {
      copy.release();
      snapshots.release(size);
      region.unpin();
      throw e;
    }
    region.unpin();
    if (CopyCounters.ENABLED) {
      CopyCounters.sendCopied(size);
    }
    return copy;
  }

  /**
   * Sends the response from {@code copy} and releases this method's reference (DDP's segments
   * hold their own). The budget charge stays until {@link #retire}; on failure it is given back.
   */
  private void sendSnapshot(ByteBuf copy, int sinkStag, long sinkTo) {
    int size = copy.readableBytes();
    try {
      source.add(copy);
      stream.sendTagged(READ_RESPONSE, sinkStag, sinkTo, source);
    } catch (RuntimeException e) {
      snapshots.release(size);
      throw e;
    } finally {
      source.clear();
      copy.release();
    }
  }

  /** Sends the response straight from the pinned region; the pin stays until {@link #retire}. */
  private void sendZeroCopy(MemoryRegion region, long srcTo, int size, int sinkStag,
      long sinkTo) {
    ByteBuf slice;
    try {
      slice = region.retainedSlice(srcTo, size);
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
    add(null, 0, txSeq);
  }

  private void add(MemoryRegion region, long chargedOctets, long txSeq) {
    if (tail - head == regions.length) {
      if (regions.length == maxSlots) {
        throw new IllegalStateException("more than IRD " + ird + " Read Responses in flight");
      }
      grow();
    }
    int i = (int) tail & mask;
    regions[i] = region;
    charged[i] = chargedOctets;
    txSeqs[i] = txSeq;
    tail++;
  }

  /**
   * Unpins the sources of, and gives back the budget charged for, every response with a
   * transmit sequence number below {@code taken}.
   */
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

  /**
   * Unpins every source still pinned and gives back every charge: the channel is closed, nothing
   * more is read from them (the transport dropped what it had not sent, copies included).
   */
  void releaseAll() {
    while (head < tail) {
      unpinSlot((int) head & mask);
      head++;
    }
  }

  private void unpinSlot(int i) {
    long octets = charged[i];
    if (octets != 0) {
      charged[i] = 0;
      snapshots.release(octets);
    }
    MemoryRegion r = regions[i];
    if (r != null) {
      regions[i] = null;
      r.unpin();
    }
  }

  private void debugResponse(String how, int sinkStag, long sinkTo, long size, int srcStag,
      long srcTo) {
    if (log.isDebugEnabled()) {
      log.debug("{} {}Read Response: {} octets from STag 0x{} TO 0x{} to STag 0x{} TO 0x{}",
          stream.channel(), how, size, Integer.toHexString(srcStag), Long.toHexString(srcTo),
          Integer.toHexString(sinkStag), Long.toHexString(sinkTo));
    }
  }
}
