/**
 * Building blocks of the verbs layer that are not public API: the lock-free rings behind the
 * completion queue and the posting queues. Subject to change without notice.
 */
package io.iwarp4j.verbs.internal;
