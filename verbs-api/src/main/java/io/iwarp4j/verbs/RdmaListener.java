package io.iwarp4j.verbs;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;

/**
 * A listening endpoint, the counterpart of a listening {@code rdma_cm_id}: accepts TCP
 * connections, runs the MPA Responder startup, and hands each well-formed request to its
 * {@link ConnectRequestHandler}. Closing it stops accepting; connections already made stay.
 */
public final class RdmaListener implements AutoCloseable {
  private final RdmaDevice device;
  private final Channel serverChannel;

  RdmaListener(RdmaDevice device, Channel serverChannel) {
    this.device = device;
    this.serverChannel = serverChannel;
  }

  /**
   * The address listened on (with the actual port when port 0 was asked for).
   *
   * @return the local address
   */
  public InetSocketAddress localAddress() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  /**
   * Whether it still accepts connections.
   *
   * @return true until closed
   */
  public boolean isOpen() {
    return serverChannel.isOpen();
  }

  /** Stops listening; waits (a bounded time) for the socket to close. Idempotent. */
  @Override
  public void close() {
    serverChannel.close().awaitUninterruptibly(5_000);
    device.forget(this);
  }

  @Override
  public String toString() {
    return "RdmaListener{" + serverChannel.localAddress() + (isOpen() ? "" : ", closed") + '}';
  }
}
