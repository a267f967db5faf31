package io.iwarp4j.verbs;

/**
 * Receives the {@link ConnectionEvent}s of one connection (set through {@link ConnectParams} or
 * {@link AcceptParams}). Called on the connection's event loop: return quickly and never block;
 * an exception thrown here is logged and ignored.
 */
@FunctionalInterface
public interface ConnectionEventListener {

  /**
   * Something happened to the connection.
   *
   * @param event what
   */
  void onEvent(ConnectionEvent event);
}
