package io.iwarp4j.verbs;

/**
 * The kind of a {@link MemoryWindow} ({@code enum ibv_mw_type}).
 */
public enum MemoryWindowType {
  /**
   * Type 1 ({@code IBV_MW_TYPE_1}): bound with the verb {@link QueuePair#bindMemoryWindow}
   * ({@code ibv_bind_mw}), and scoped to the protection domain like a region: usable on every
   * connection of the domain, so a peer may not invalidate it (RFC 5040 §8.1.1 item 7) and
   * {@code LOCAL_INV} does not apply; a new bind replaces the binding, a bind of length 0
   * unbinds it.
   */
  TYPE_1,
  /**
   * Type 2 ({@code IBV_MW_TYPE_2}): bound by a {@link WorkRequestOpcode#BIND_MW} work request
   * on a queue pair's send queue, in order with its other work requests, and usable only on
   * that queue pair's connection (RFC 5041 §8.2: a segment from any other stream naming it gets
   * DDP Terminate 1/1/0x02, a Read Request RDMAP 0/1/0x03).
   */
  TYPE_2
}
