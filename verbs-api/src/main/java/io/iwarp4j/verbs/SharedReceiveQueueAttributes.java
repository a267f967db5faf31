package io.iwarp4j.verbs;

/**
 * A snapshot of a {@link SharedReceiveQueue}, the counterpart of {@code struct ibv_srq_attr} as
 * {@code ibv_query_srq} fills it, plus the count of receives posted and not yet taken.
 *
 * @param maxWr the most receives the queue holds ({@code max_wr})
 * @param maxSge the most scatter/gather entries of one receive ({@code max_sge})
 * @param limit the armed limit, or 0 when no limit event is armed ({@code srq_limit})
 * @param outstanding receives posted and not yet taken by a queue pair
 */
public record SharedReceiveQueueAttributes(int maxWr, int maxSge, int limit, int outstanding) {
}
