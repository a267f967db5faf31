package io.iwarp4j.verbs;

/**
 * Decides on incoming connections of an {@link RdmaListener}: the counterpart of handling
 * {@code RDMA_CM_EVENT_CONNECT_REQUEST}.
 *
 * <p>Called on the new connection's event loop: return quickly and never block. Accept or
 * reject there, or keep the {@link ConnectRequest} and decide from another thread; a request
 * left undecided is closed when the device's MPA request timeout ({@link
 * MpaSettings#requestTimeout()}) expires. An exception thrown here rejects the
 * request.
 */
@FunctionalInterface
public interface ConnectRequestHandler {

  /**
   * A peer asks to connect.
   *
   * @param request what it sent, and how to answer
   */
  void onConnectRequest(ConnectRequest request);
}
