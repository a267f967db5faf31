/**
 * The verbs-style API: devices, protection domains, memory regions, queue pairs, completion
 * queues and the connection manager, modelled on libibverbs and librdmacm as Linux iWARP
 * devices use them.
 *
 * <h2>Objects</h2>
 * <table>
 *   <caption>The API and its libibverbs / librdmacm counterparts</caption>
 *   <tr><th>iwarp4j</th><th>rdma-core</th></tr>
 *   <tr><td>{@link io.iwarp4j.verbs.RdmaDevice#open}</td><td>{@code ibv_open_device},
 *       {@code rdma_create_event_channel}</td></tr>
 *   <tr><td>{@link io.iwarp4j.verbs.RdmaDevice#allocateProtectionDomain}</td>
 *       <td>{@code ibv_alloc_pd}</td></tr>
 *   <tr><td>{@link io.iwarp4j.verbs.ProtectionDomain#register},
 *       {@link io.iwarp4j.verbs.ProtectionDomain#allocate}</td><td>{@code ibv_reg_mr}</td></tr>
 *   <tr><td>{@link io.iwarp4j.verbs.RdmaDevice#createCompletionQueue}</td>
 *       <td>{@code ibv_create_cq}</td></tr>
 *   <tr><td>{@link io.iwarp4j.verbs.RdmaDevice#createQueuePair}</td>
 *       <td>{@code rdma_create_qp}</td></tr>
 *   <tr><td>{@link io.iwarp4j.verbs.QueuePair#postSend},
 *       {@link io.iwarp4j.verbs.QueuePair#postRecv}</td>
 *       <td>{@code ibv_post_send}, {@code ibv_post_recv}</td></tr>
 *   <tr><td>{@link io.iwarp4j.verbs.ProtectionDomain#createSharedReceiveQueue},
 *       {@link io.iwarp4j.verbs.SharedReceiveQueue#postRecv},
 *       {@link io.iwarp4j.verbs.SharedReceiveQueue#armLimit}</td>
 *       <td>{@code ibv_create_srq}, {@code ibv_post_srq_recv}, {@code ibv_modify_srq}</td></tr>
 *   <tr><td>{@link io.iwarp4j.verbs.CompletionQueue#poll},
 *       {@link io.iwarp4j.verbs.CompletionQueue#requestNotify}</td>
 *       <td>{@code ibv_poll_cq}, {@code ibv_req_notify_cq}</td></tr>
 *   <tr><td>{@link io.iwarp4j.verbs.RdmaDevice#createCompletionChannel},
 *       {@link io.iwarp4j.verbs.CompletionChannel#awaitEvent},
 *       {@link io.iwarp4j.verbs.CompletionChannel#ackEvents}</td>
 *       <td>{@code ibv_create_comp_channel}, {@code ibv_get_cq_event},
 *       {@code ibv_ack_cq_events}</td></tr>
 *   <tr><td>{@link io.iwarp4j.verbs.RdmaDevice#listen},
 *       {@link io.iwarp4j.verbs.ConnectRequest#accept},
 *       {@link io.iwarp4j.verbs.ConnectRequest#reject}</td>
 *       <td>{@code rdma_listen}, {@code rdma_accept}, {@code rdma_reject}</td></tr>
 *   <tr><td>{@link io.iwarp4j.verbs.RdmaDevice#connect},
 *       {@link io.iwarp4j.verbs.RdmaConnection#disconnect}</td>
 *       <td>{@code rdma_connect}, {@code rdma_disconnect}</td></tr>
 *   <tr><td>{@link io.iwarp4j.verbs.ConnectionEvent}</td><td>{@code rdma_cm_event}</td></tr>
 * </table>
 *
 * <p>Work requests, scatter/gather lists and completions are mutable objects meant to be reused:
 * posting copies a work request into a preallocated slot and polling fills caller-owned
 * completions, so steady-state operation allocates nothing. {@link
 * io.iwarp4j.verbs.AsyncQueuePair} adds a {@code CompletableFuture} per operation on top, for
 * code that prefers that to polling.
 *
 * <h2>Threads</h2>
 * Each connection lives on one event loop thread of its device. Application threads post
 * through a lock-free multi-producer ring that wakes the loop once per batch; the loop issues
 * the work requests to the RDMAP stream and flushes once per batch. Completions are added to
 * the completion queues on the loop; any thread may poll. Listeners (connection events,
 * completion notifications, connect requests) are called on the loop and must not block; a
 * {@link io.iwarp4j.verbs.CompletionChannel} hands completion notifications to application
 * threads instead.
 *
 * <h2>Completion semantics (RFC 5040 §5.5)</h2>
 * A Send or RDMA Write completes once handed to TCP in full; an RDMA Read once its data is
 * placed; a receive once the whole message is placed. Send completions come in send queue
 * order, receive completions in posting order. FENCE holds a work request until every earlier
 * Read has completed; once ORD Reads are outstanding, later work requests wait their turn.
 *
 * <h2>Errors</h2>
 * On a Terminate (sent or received), a disconnect, a completion queue overrun or a local error,
 * the queue pair moves to {@link io.iwarp4j.verbs.QpState#ERROR} and every outstanding work
 * request, and every one posted later, completes with
 * {@link io.iwarp4j.verbs.WcStatus#WR_FLUSH_ERR}, except the one the error is charged to. A
 * Terminate from the peer is charged to the oldest send work request in flight; its status:
 * <table>
 *   <caption>Terminate received (Layer/EType/Code) to work completion status</caption>
 *   <tr><th>Terminate</th><th>Status</th></tr>
 *   <tr><td>RDMAP 0/0 local catastrophic</td><td>REM_OP_ERR</td></tr>
 *   <tr><td>RDMAP 0/1 remote protection (invalid STag, bounds, access, ...)</td>
 *       <td>REM_ACCESS_ERR</td></tr>
 *   <tr><td>RDMAP 0/2/0x05, 0x06 invalid RDMAP version, unexpected opcode</td>
 *       <td>REM_INV_REQ_ERR</td></tr>
 *   <tr><td>RDMAP 0/2/0x09 STag cannot be invalidated</td><td>REM_ACCESS_ERR</td></tr>
 *   <tr><td>RDMAP 0/2 other remote operation errors</td><td>REM_OP_ERR</td></tr>
 *   <tr><td>DDP 1/0 local catastrophic</td><td>REM_OP_ERR</td></tr>
 *   <tr><td>DDP 1/1 tagged buffer errors (0x04 invalid version: REM_INV_REQ_ERR)</td>
 *       <td>REM_ACCESS_ERR</td></tr>
 *   <tr><td>DDP 1/2 untagged buffer errors (no buffer, too long, ...)</td>
 *       <td>REM_INV_REQ_ERR</td></tr>
 *   <tr><td>LLP 2 (MPA: CRC, Markers, ...)</td><td>FATAL_ERR</td></tr>
 * </table>
 * A Terminate this end sent faults what the peer sent; it is charged to a local work request
 * only when one is involved: DDP 1/2/0x05 to the oldest receive as LOC_LEN_ERR, an STag that
 * cannot be invalidated (0/1/0x09, 0/2/0x09) to the oldest receive as LOC_ACCESS_ERR, a local
 * catastrophic or LLP error to the send in flight as FATAL_ERR. The charged completion carries
 * the Terminate's {@code layer << 16 | type << 8 | code} in
 * {@link io.iwarp4j.verbs.WorkCompletion#vendorError()}, and an ERROR
 * {@link io.iwarp4j.verbs.ConnectionEvent} carries it decoded
 * ({@link io.iwarp4j.verbs.TerminateInfo}). A connection lost under a work request charges it
 * FATAL_ERR; a graceful disconnect and a completion queue overrun flush everything; memory a
 * work request may not use is LOC_PROT_ERR.
 */
package io.iwarp4j.verbs;
