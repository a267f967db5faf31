package io.iwarp4j.verbs;

/**
 * The posting checks of a {@link SendWorkRequest} ({@link SendWorkRequest#validate(int, int)}):
 * that it is complete and consistent for its opcode and fits the queue pair's limits. Each
 * exception names the opcode, the wrId and the first problem found. No allocation unless it
 * throws.
 */
final class SendRequestChecks {
  private SendRequestChecks() {
  }

  /** {@link SendWorkRequest#validate(int, int)}. */
  static void validate(SendWorkRequest wr, int maxSge, int maxInlineData) {
    int flags = wr.flags();
    ScatterGatherList sgl = wr.sgl();
    WorkRequestOpcode opcode = wr.opcode();
    if (maxSge < 0) {
      throw new IllegalArgumentException("maxSge " + maxSge + " is negative");
    }
    if (opcode == null) {
      throw new IllegalArgumentException("send work request (wrId " + wr.wrId()
          + "): opcode is not set");
    }
    int unknown = flags & ~SendFlags.ALL;
    if (unknown != 0) {
      throw problem(wr, "unknown send flags 0x" + Integer.toHexString(unknown)
          + " (known: SIGNALED, SOLICITED, FENCE, INLINE)");
    }
    if (SendFlags.has(flags, SendFlags.SOLICITED) && !opcode.canSolicitEvent()) {
      throw problem(wr, "the SOLICITED flag is only for messages that land in a peer receive"
          + " (Send, Immediate Data, RDMA Write with Immediate)");
    }
    if (SendFlags.has(flags, SendFlags.INLINE)) {
      if (!opcode.sendsLocalData()) {
        throw problem(wr, "the INLINE flag is only for opcodes that send local data (the Send"
            + " family, RDMA Write, RDMA Write with Immediate): there is no payload to copy");
      }
      if (sgl.totalLength() > maxInlineData) {
        throw problem(wr, "inline data of " + sgl.totalLength() + " octets exceeds the queue"
            + " pair's maxInlineData of " + maxInlineData + " (QueuePairConfig.maxInlineData)");
      }
      for (int i = 0; i < sgl.count(); i++) {
        if (sgl.buffer(i) instanceof MemoryRegion mr && mr.isClosed()) {
          throw problem(wr, "SGE " + i + " names a closed memory region (STag 0x"
              + Integer.toHexString(mr.stag()) + "), and inline data is read when posted");
        }
      }
    }
    int sges = sgl.count();
    if (opcode == WorkRequestOpcode.RDMA_READ && sges != 1) {
      throw problem(wr, "needs exactly one SGE (the local sink of the Read), has " + sges);
    }
    if (opcode.isAtomic() && sges != 0) {
      throw problem(wr, "carries no SGEs (the original value goes to the local result buffer),"
          + " has " + sges);
    }
    if (opcode.carriesImmediateData() && !opcode.sendsLocalData() && sges != 0) {
      throw problem(wr, "carries no SGEs (its payload is the 8-octet immediate data), has "
          + sges);
    }
    if (opcode.isLocal() && sges != 0) {
      throw problem(wr, "carries no SGEs (it only changes local STags), has " + sges);
    }
    if (opcode == WorkRequestOpcode.LOCAL_INV && !wr.hasInvalidateStag()) {
      throw problem(wr, "needs the STag to invalidate: call invalidateStag(stag)");
    }
    if (opcode == WorkRequestOpcode.REG_MR && wr.registration().problem() != null) {
      throw problem(wr, wr.registration().problem());
    }
    if (opcode == WorkRequestOpcode.BIND_MW && wr.windowBind().problem() != null) {
      throw problem(wr, wr.windowBind().problem());
    }
    if (sges > maxSge) {
      throw problem(wr, sges + " SGEs exceed the queue pair's maximum of " + maxSge);
    }
    if (sgl.totalLength() > SendWorkRequest.MAX_MESSAGE_LENGTH) {
      throw problem(wr, "message length " + sgl.totalLength() + " exceeds the RDMAP maximum of "
          + SendWorkRequest.MAX_MESSAGE_LENGTH + " octets");
    }
    if (opcode.needsRemoteBuffer() && !wr.hasRemoteStag()) {
      throw problem(wr, "needs a remote STag and address: call remote(stag, address)");
    }
    if (opcode.carriesInvalidateStag() && !wr.hasInvalidateStag()) {
      throw problem(wr, "needs the STag to invalidate: call invalidateStag(stag)");
    }
    if (opcode.isAtomic()) {
      // No alignment check of the remote address: RFC 7306 requires the target's memory
      // address to be 64-bit aligned, which only the responder knows (a region over memory at
      // an odd base aligns odd Tagged Offsets). The responder answers Terminate 0/2/0x07.
      if (wr.localResultBuffer() == null) {
        throw problem(wr, "needs a local result buffer for the 8-octet original value: call"
            + " localResult(buffer, offset)");
      }
    }
  }

  private static IllegalArgumentException problem(SendWorkRequest wr, String what) {
    return new IllegalArgumentException(wr.opcode() + " work request (wrId " + wr.wrId() + "): "
        + what);
  }
}
