package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagCheck;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.AtomicRequestHeader;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Responder side of the RFC 7306 Atomic Operations: validates a delivered Atomic Request and
 * performs it on registered memory.
 *
 * <p>Checks, in order, before any memory is touched (§5.1, §5.2.1, §8.2):
 * <ol>
 *   <li>the AOpCode is FetchAdd (0x0) or CmpSwap (0x2), else 0/2/0x06 Unexpected OpCode (0x1 is
 *       reserved);
 *   <li>the Remote STag is valid (0/1/0x00), of this stream's Protection Domain (0/1/0x03),
 *       grants REMOTE_ATOMIC (0/1/0x02), and its range holds the 8 octets at the Remote TO
 *       (0/1/0x01; a wrapping range 0/1/0x04): the Remote Protection codes a Read Request's
 *       source gets;
 *   <li>the target's memory address is 64-bit aligned, else 0/2/0x07 "Catastrophic error,
 *       localized to RDMAP Stream" (§8.2). Only the address counts (§5.1.1, §5.1.2: "ULP Buffer
 *       addresses that are 64-bit aligned"), not the Tagged Offset: a region registered over
 *       memory at an odd base takes atomics at every TO that lands on an aligned address.
 * </ol>
 *
 * <p>The operation itself is one VarHandle atomic on the off-heap octets (a CAS loop for the
 * masked forms), in native byte order: atomic with respect to every other atomic on the same
 * memory, from any queue pair, event loop or local {@link MemoryRegion#getAndAddLong} caller,
 * without a lock (§5.3). The region is pinned for the duration so it cannot be freed under it.
 *
 * <p>Event-loop confined; allocates nothing.
 */
final class AtomicResponder {
  private static final Logger log = LoggerFactory.getLogger(AtomicResponder.class);

  private final StagTable stags;
  private final ProtectionDomain pd;
  private int requestId;
  private long originalValue;

  /** The stream's identity, for STags limited to one stream (memory windows). */
  private final Object scope;

  AtomicResponder(ProtectionDomain pd, Object scope) {
    this.pd = pd;
    this.scope = scope;
    this.stags = pd.table();
  }

  /** The Request Identifier of the last request {@link #execute} performed. */
  int requestId() {
    return requestId;
  }

  /** The value the target held before the last request {@link #execute} performed. */
  long originalValue() {
    return originalValue;
  }

  /**
   * Validates and performs the Atomic Request whose 52 octets are {@code request}'s readable
   * bytes.
   *
   * @return null when it was performed ({@link #requestId()}, {@link #originalValue()}); else the
   *     error to terminate with, and the memory is untouched
   */
  RdmapError execute(ByteBuf request) {
    int start = request.readerIndex();
    AtomicOpcode op = AtomicOpcode.fromCode(AtomicRequestHeader.aopcode(request, start));
    if (op == null) {
      return RdmapError.UNEXPECTED_OPCODE;
    }
    int stag = AtomicRequestHeader.remoteStag(request, start);
    long to = AtomicRequestHeader.remoteTo(request, start);
    MemoryRegion region = stags.lookup(stag);
    StagCheck check = region == null ? StagCheck.INVALID_STAG
        : region.check(to, Long.BYTES, AccessFlags.REMOTE_ATOMIC, pd, scope);
    if (check != StagCheck.OK) {
      return RdmapError.forReadSource(check);
    }
    long offset = to - region.baseTo();
    if (!region.isAtomicTarget(offset)) {
      return RdmapError.CATASTROPHIC_STREAM;
    }
    if (!region.tryPin()) {
      return RdmapError.INVALID_STAG; // invalidated on another thread since the check
    }
    long data = AtomicRequestHeader.addOrSwapData(request, start);
    long dataMask = AtomicRequestHeader.addOrSwapMask(request, start);
    try {
      originalValue = op == AtomicOpcode.FETCH_ADD
          ? region.pinnedFetchAdd(offset, data, dataMask)
          : region.pinnedCmpSwap(offset, AtomicRequestHeader.compareData(request, start),
              AtomicRequestHeader.compareMask(request, start), data, dataMask);
    } finally {
      region.unpin();
    }
    requestId = AtomicRequestHeader.requestId(request, start);
    if (log.isDebugEnabled()) {
      log.debug("Atomic {} at STag 0x{} TO 0x{}: original 0x{}", op, Integer.toHexString(stag),
          Long.toHexString(to), Long.toHexString(originalValue));
    }
    return null;
  }
}
