package io.iwarp4j.verbs;

import io.iwarp4j.ddp.mem.StagTable;

/**
 * Executes the send queue's local memory operations, {@link WorkRequestOpcode#REG_MR} and
 * {@link WorkRequestOpcode#LOCAL_INV} (siw's {@code siw_fastreg_mr} and
 * {@code siw_invalidate_stag}), for one queue pair when their turn comes. Event loop only.
 *
 * <p>Refusals, each naming the problem (the queue pair fails the work request with
 * {@link WcStatus#LOC_QP_OP_ERR}, as siw fails a local operation that returns -EINVAL):
 * REG_MR of a region of another protection domain, closed, still VALID, beyond its capacity,
 * with the current key, or with memory that cannot be registered (released, or read-only with
 * write access); LOCAL_INV of an STag that is not valid (unknown, a stale key, or an
 * invalidated plain region) or that belongs to another protection domain. A LOCAL_INV of a
 * fast-register region's current STag that is already invalid (a peer's Send with Invalidate
 * got there first) succeeds, as in siw ({@code siw_invalidate_stag} does no state check).
 */
final class LocalMemoryOperations {
  private final ProtectionDomain pd;
  private final StagTable stags;

  LocalMemoryOperations(ProtectionDomain pd) {
    this.pd = pd;
    this.stags = pd.ddp().table();
  }

  /**
   * Executes one REG_MR or LOCAL_INV.
   *
   * @return null when done, else why it was refused (nothing changed)
   */
  String execute(SendWorkRequest wr, Object streamScope) {
    return switch (wr.opcode()) {
      case REG_MR -> register(wr.registration());
      case BIND_MW -> bind(wr.windowBind(), streamScope);
      default -> invalidate(wr.invalidateStag());
    };
  }

  /**
   * A type 2 window's bind: scoped to {@code streamScope}, the stream of the connection the
   * queue pair runs now (RFC 5041 §8.2).
   */
  private String bind(WindowBind bind, Object streamScope) {
    MemoryWindow w = bind.window();
    if (w.pd() != pd) {
      return "memory window " + w + " belongs to another protection domain";
    }
    if (bind.region().pd() != pd) {
      return "memory region " + bind.region() + " belongs to another protection domain";
    }
    boolean type1 = w.type() == MemoryWindowType.TYPE_1;
    try {
      if (type1) {
        // A type 1 bind replaces the binding; length 0 only unbinds (ibv_bind_mw).
        w.ddp().invalidate();
        if (bind.length() == 0) {
          return null;
        }
      }
      w.ddp().bind(bind.stag(), bind.region().region(), bind.offset(), bind.length(),
          bind.access(), type1 ? null
              : java.util.Objects.requireNonNull(streamScope, "streamScope"));
      return null;
    } catch (IllegalArgumentException | IllegalStateException e) {
      return e.getMessage();
    }
  }

  private String register(FastRegistration reg) {
    FastRegisterRegion fr = reg.region();
    if (fr.pd() != pd) {
      return "fast-register region " + fr + " belongs to another protection domain";
    }
    try {
      fr.ddp().register(reg.stag(), reg.memory(), reg.index(), reg.length(), reg.access());
      return null;
    } catch (IllegalArgumentException | IllegalStateException e) {
      return e.getMessage();
    }
  }

  private String invalidate(int stag) {
    io.iwarp4j.ddp.mem.MemoryRegion r = stags.lookup(stag);
    if (r == null) {
      FastRegisterRegion fr = pd.fastRegisterRegion(stag);
      if (fr != null && fr.stag() == stag && !fr.isClosed()) {
        return null; // its current STag, already invalid (by the peer): nothing to do, as siw
      }
      return "STag 0x" + Integer.toHexString(stag) + " is not valid (unknown, invalidated,"
          + " or a stale key)";
    }
    if (r.pd() != pd.ddp()) {
      return "STag 0x" + Integer.toHexString(stag) + " belongs to another protection domain";
    }
    if (r.memoryWindow() != null && r.scope() == null) {
      return "STag 0x" + Integer.toHexString(stag) + " names a type 1 memory window: unbind it"
          + " with QueuePair.bindMemoryWindow(..., length 0) (ibv_bind_mw), not LOCAL_INV";
    }
    try {
      // Waits for placements in flight on other event loops: none starts after this.
      r.invalidate();
      return null;
    } catch (IllegalStateException e) {
      return e.getMessage();
    }
  }
}
