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
 */
public record QueuePairCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge,
    int maxRecvSge, int ird, int ord, boolean rfc7306) {
}
