/**
 * RDMAP (RFC 5040, with the RFC 7306 extensions): RDMA Write, Read, the Send variants,
 * Terminate, remote atomics and immediate data. Filled in by the RDMAP issue.
 */
package io.iwarp4j.rdmap;
