/**
 * The verbs-style API: devices, protection domains, memory regions, queue pairs, completion
 * queues and the connection manager. Filled in by the RDMAP and verbs API issue.
 */
package io.iwarp4j.verbs;
