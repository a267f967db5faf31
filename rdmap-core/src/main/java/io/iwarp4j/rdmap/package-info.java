/**
 * RDMAP (RFC 5040): RDMA Write, RDMA Read, the four Sends, Terminate and stream teardown over a
 * DDP stream.
 *
 * <p>{@link io.iwarp4j.rdmap.RdmapEndpoint} is the engine, one per connection, confined to its
 * event loop; {@link io.iwarp4j.rdmap.RdmapEndpointListener} is what it tells its owner (the
 * verbs queue pair). The header codecs and the opcode table are in {@code io.iwarp4j.wire}
 * ({@link io.iwarp4j.wire.OpcodeTable}); the Layer 0 Terminate codes
 * ({@link io.iwarp4j.rdmap.RdmapError}) are stateless. The RFC 7306 opcodes are known to the
 * codecs but not supported by the engine: a peer that sends them gets "Unexpected OpCode".
 */
package io.iwarp4j.rdmap;

