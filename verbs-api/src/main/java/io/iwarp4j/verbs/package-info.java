/**
 * The verbs-style API: devices, protection domains, memory regions, queue pairs, completion
 * queues and the connection manager. Filled in by the RDMAP and verbs API issue.
 *
 * <p>The types follow libibverbs where iWARP allows: {@link io.iwarp4j.verbs.SendWorkRequest}
 * and {@link io.iwarp4j.verbs.RecvWorkRequest} mirror {@code ibv_send_wr} and
 * {@code ibv_recv_wr}, {@link io.iwarp4j.verbs.WorkCompletion} mirrors {@code ibv_wc}, and
 * {@link io.iwarp4j.verbs.CompletionQueue} offers {@code poll}, a blocking {@code await} and
 * {@code requestNotify} like {@code ibv_poll_cq} and {@code ibv_req_notify_cq}. Work requests,
 * scatter/gather lists and completions are mutable objects meant to be reused: posting copies
 * a work request and polling fills caller-owned completions, so steady-state operation
 * allocates nothing.
 */
package io.iwarp4j.verbs;
