package io.iwarp4j.rdmap;

import io.iwarp4j.wire.RdmapOpcode;

/**
 * What an {@link RdmapEndpoint} tells its owner (the verbs queue pair). Every call runs on the
 * endpoint's event loop, carries primitives only, and must not block.
 *
 * <p>Tokens are the caller's: the queue pair passes its send-queue slot sequence and receive
 * buffer ids and gets them back here, so no object is created per operation.
 */
public interface RdmapEndpointListener {

  /**
   * An RDMA Write or a Send (any variant) has been handed to TCP in full: every payload octet
   * was taken by the transport, so the application may reuse the memory (RFC 5040 §5.5).
   * Reported in the order the operations were issued, RDMA Reads included (§5.5 rule 15): a Send
   * issued after a Read is reported after that Read's {@link #onReadComplete}.
   *
   * @param token the caller's identifier for the operation, handed back on completion
   */
  void onSendComplete(long token);

  /**
   * An RDMA Read or an RFC 7306 Atomic completed: the last octet of its Read Response was placed
   * in the local sink region, or its Atomic Response was delivered and the original value stored
   * in the result buffer (length 8). Reads complete in the order they were issued, and in issue order with the Writes and
   * Sends around them.
   *
   * @param token the caller's identifier for the operation, handed back on completion
   * @param length octets placed (the Read's size)
   */
  void onReadComplete(long token, long length);

  /**
   * A batch of {@link #onSendComplete} / {@link #onReadComplete} calls has ended: the owner may
   * issue what those completions made room for, once per batch rather than once per completion.
   */
  default void onCompletionsReported() {
  }

  /**
   * A Send-type message was delivered into the receive buffer posted with {@code bufferId}
   * (buffers are consumed in the order they were posted).
   *
   * @param bufferId the caller's identifier for the buffer
   * @param opcode which Send variant carried it
   * @param length message length in octets
   * @param invalidatedStag the STag a Send with Invalidate invalidated, or 0 when none
   */
  void onReceive(long bufferId, RdmapOpcode opcode, int length, int invalidatedStag);

  /**
   * An RFC 7306 Immediate Data (or Immediate Data with SE) message was delivered: it consumed
   * the receive buffer posted with {@code bufferId} without filling it, and its 8 octets are
   * {@code data}. Delivered in order with the Sends around it (§6.3, §6.4).
   *
   * @param bufferId the caller's identifier for the consumed buffer
   * @param opcode IMMEDIATE_DATA or IMMEDIATE_DATA_WITH_SE (which asks for a solicited event)
   * @param data the immediate data
   */
  void onImmediateData(long bufferId, RdmapOpcode opcode, long data);

  /**
   * This end detected an error (DDP, RDMAP, or MPA) and sent a Terminate with this
   * layer/type/code (RFC 5040 §4.8, §7), or could not send one and closed. The stream is dead:
   * no further completion follows; the owner flushes what is outstanding.
   *
   * @param layer the Terminate layer
   * @param errorType the Terminate error type
   * @param errorCode the Terminate error code
   */
  void onTerminateSent(int layer, int errorType, int errorCode);

  /**
   * This end detected an error with this layer/type/code but could send no Terminate: the
   * peer's first FPDU failed its CRC or Marker check, and nothing may be sent before an intact
   * one (RFC 5044 §7.1.2 rule 4). The connection is closed; the stream is dead, as above.
   *
   * @param layer the layer of the Terminate that would have been sent
   * @param errorType its error type
   * @param errorCode its error code
   */
  default void onTerminateWithheld(int layer, int errorType, int errorCode) {
    onTerminateSent(layer, errorType, errorCode);
  }

  /**
   * The peer sent a Terminate with this layer/type/code. The stream is dead, as above.
   *
   * @param layer the Terminate layer
   * @param errorType the Terminate error type
   * @param errorCode the Terminate error code
   */
  void onTerminateReceived(int layer, int errorType, int errorCode);

  /**
   * The connection ended without a Terminate: a graceful close by either side (siw closes with a
   * plain FIN), a reset, or a lost connection. The stream is dead, as above.
   *
   * @param graceful true for an orderly FIN at a message boundary
   */
  void onDisconnected(boolean graceful);

  /**
   * A Send-type message or Immediate Data arrived and finds no posted receive buffer: the owner
   * posts one now, on this thread, with {@link RdmapEndpoint#postReceive} (receives it accepted
   * and has not handed over yet, or one taken from a shared receive queue at the moment a
   * message needs it). If it posts none, the stream ends with DDP's "no buffer available"
   * Terminate (1/2/0x02). Must not block.
   */
  default void onReceiveBufferNeeded() {
  }

  /**
   * Local memory an outstanding operation uses was deregistered under it: the sink of an RDMA
   * Read or the result buffer of an Atomic ({@code receive} false, {@code id} its token), or a
   * posted receive buffer ({@code receive} true, {@code id} its buffer id). A local protection
   * error, charged to that operation: the endpoint then ends the stream with an RDMAP Local
   * Catastrophic Terminate (0/0/0x00), reported by {@link #onTerminateSent}, never blaming the
   * peer. Called before that Terminate; by default nothing more happens than the Terminate.
   *
   * @param id the token or buffer id charged
   * @param receive whether {@code id} is a posted receive buffer's
   */
  default void onLocalProtectionError(long id, boolean receive) {
  }
}
