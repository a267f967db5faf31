package io.iwarp4j.verbs;

/**
 * What a {@link QueuePair} was created with, the counterpart of {@code ibv_qp_cap} plus the
 * queue pair's RDMA Read depths and whether it speaks RFC 7306.
 *
 * @param maxSendWr the most send work requests posted and not yet completed
 * @param maxRecvWr the most receive work requests posted and not yet completed
 * @param maxSendSge the most scatter/gather entries of one send work request
 * @param maxRecvSge the most scatter/gather entries of one receive work request
 * @param ird inbound RDMA Read depth offered in the MPA negotiation: how many Read Requests the
 *     peer may have outstanding at this end
 * @param ord outbound RDMA Read depth asked for in the MPA negotiation: how many Reads this end
 *     wants outstanding at once (the negotiated value may be lower); RFC 7306 Atomics count
 *     against the same depths as Reads
 * @param rfc7306 whether the queue pair speaks RFC 7306 (Atomics, Immediate Data)
 * @param maxInlineData the most octets one {@link SendFlags#INLINE} send work request may carry
 *     (the verbs {@code max_inline_data}); 0 when the queue pair takes no inline data
 */
public record QueuePairCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge,
    int maxRecvSge, int ird, int ord, boolean rfc7306, int maxInlineData) {

  /**
   * Capabilities with the default inline limit, {@link DeviceConfig#DEFAULT_INLINE_DATA}.
   *
   * @param maxSendWr see the record
   * @param maxRecvWr see the record
   * @param maxSendSge see the record
   * @param maxRecvSge see the record
   * @param ird see the record
   * @param ord see the record
   * @param rfc7306 see the record
   */
  public QueuePairCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge,
      int ird, int ord, boolean rfc7306) {
    this(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, ird, ord, rfc7306,
        DeviceConfig.DEFAULT_INLINE_DATA);
  }
}
