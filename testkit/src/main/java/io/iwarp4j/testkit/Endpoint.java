package io.iwarp4j.testkit;

import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RemoteBuffer;

/**
 * One end of an {@link RdmaPair}: its device, protection domain, completion queue (shared by
 * the send and the receive queue), connected queue pair, registered region, and the other end's
 * region as a {@link RemoteBuffer}, learned from the connection's private data as an rping-style
 * program would. The pair owns and closes all of it.
 */
public final class Endpoint {
  private final String name;
  private final RdmaDevice device;
  private final ProtectionDomain pd;
  private final CompletionQueue cq;
  private final QueuePair qp;
  private final MemoryRegion region;
  private final Completions completions;
  private RdmaConnection connection;
  private RemoteBuffer remote;

  Endpoint(String name, RdmaDevice device, ProtectionDomain pd, CompletionQueue cq,
      QueuePair qp, MemoryRegion region, Completions completions) {
    this.name = name;
    this.device = device;
    this.pd = pd;
    this.cq = cq;
    this.qp = qp;
    this.region = region;
    this.completions = completions;
  }

  void connected(RdmaConnection c) {
    connection = c;
    remote = RemoteBuffer.fromBytes(c.peerPrivateData(), 0);
  }

  /**
   * "client" (the end that connected) or "server" (the end that accepted).
   *
   * @return the end's name
   */
  public String name() {
    return name;
  }

  /**
   * The end's own device.
   *
   * @return the device
   */
  public RdmaDevice device() {
    return device;
  }

  /**
   * The protection domain of the queue pair and the region.
   *
   * @return the protection domain
   */
  public ProtectionDomain pd() {
    return pd;
  }

  /**
   * The completion queue of both the send and the receive queue.
   *
   * @return the completion queue
   */
  public CompletionQueue cq() {
    return cq;
  }

  /**
   * Bounded waits and assertions on {@link #cq()}.
   *
   * @return the completions of this end
   */
  public Completions completions() {
    return completions;
  }

  /**
   * The connected queue pair.
   *
   * @return the queue pair
   */
  public QueuePair qp() {
    return qp;
  }

  /**
   * The queue pair's connection.
   *
   * @return the connection
   */
  public RdmaConnection connection() {
    return connection;
  }

  /**
   * This end's registered region, with local write, remote read and remote write rights.
   *
   * @return the region
   */
  public MemoryRegion region() {
    return region;
  }

  /**
   * The other end's region, as that end sent it in its connection private data.
   *
   * @return the remote buffer to use in RDMA Writes and Reads from this end
   */
  public RemoteBuffer remote() {
    return remote;
  }

  @Override
  public String toString() {
    return name + " " + qp;
  }
}
