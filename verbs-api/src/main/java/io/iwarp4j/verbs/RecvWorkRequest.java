package io.iwarp4j.verbs;

import java.util.Objects;

/**
 * A work request for the receive queue, the counterpart of {@code ibv_recv_wr}: buffers for
 * the next incoming Send or Immediate Data message. Reusable and mutable like
 * {@link SendWorkRequest}; posting copies it and allocates nothing. Not thread-safe.
 */
public final class RecvWorkRequest {

  private final ScatterGatherList sgl;
  private long wrId;

  /**
   * Creates an empty receive work request.
   *
   * @param maxSge the capacity of its scatter/gather list, normally the queue pair's maximum
   *     receive SGEs
   * @throws IllegalArgumentException if {@code maxSge} is negative or above
   *     {@link ScatterGatherList#MAX_CAPACITY}
   */
  public RecvWorkRequest(int maxSge) {
    this.sgl = new ScatterGatherList(maxSge);
  }

  /**
   * Sets the caller's identifier, returned unchanged in the work completion.
   *
   * @param wrId any value
   * @return this work request
   */
  public RecvWorkRequest wrId(long wrId) {
    this.wrId = wrId;
    return this;
  }

  /**
   * The caller's identifier.
   *
   * @return the work request id
   */
  public long wrId() {
    return wrId;
  }

  /**
   * The scatter/gather list the incoming message is placed into, in order.
   *
   * @return the list, owned by this work request
   */
  public ScatterGatherList sgl() {
    return sgl;
  }

  /**
   * Appends an entry to the scatter/gather list.
   *
   * @param buffer the memory
   * @param offset the first octet, counted from the start of {@code buffer}
   * @param length the number of octets
   * @return this work request
   * @throws IllegalArgumentException as {@link ScatterGatherList#add(LocalBuffer, long, long)}
   */
  public RecvWorkRequest addSge(LocalBuffer buffer, long offset, long length) {
    sgl.add(buffer, offset, length);
    return this;
  }

  /**
   * Clears the id and the scatter/gather list.
   *
   * @return this work request
   */
  public RecvWorkRequest reset() {
    wrId = 0;
    sgl.clear();
    return this;
  }

  /**
   * Makes this work request a copy of {@code other}, without allocating.
   *
   * @param other the work request to copy
   * @return this work request
   * @throws IllegalArgumentException if {@code other} has more SGEs than this one can hold
   */
  public RecvWorkRequest copyFrom(RecvWorkRequest other) {
    Objects.requireNonNull(other, "other");
    sgl.copyFrom(other.sgl);
    wrId = other.wrId;
    return this;
  }

  /**
   * Checks the work request against the queue pair's limits.
   *
   * @param maxSge the queue pair's maximum SGEs per receive work request
   * @throws IllegalArgumentException naming the problem
   */
  public void validate(int maxSge) {
    if (maxSge < 0) {
      throw new IllegalArgumentException("maxSge " + maxSge + " is negative");
    }
    if (sgl.count() > maxSge) {
      throw new IllegalArgumentException("receive work request (wrId " + wrId + "): "
          + sgl.count() + " SGEs exceed the queue pair's maximum of " + maxSge);
    }
    for (int i = 0; i < sgl.count(); i++) {
      if (sgl.buffer(i) instanceof FastRegisterRegion) {
        throw new IllegalArgumentException("receive work request (wrId " + wrId + "): SGE " + i
            + " names a fast-register region, which cannot take receives; post receives into"
            + " a MemoryRegion");
      }
    }
    // Longer buffers are harmless, yet they reveal a mistake: no message can fill them.
    if (sgl.totalLength() > SendWorkRequest.MAX_MESSAGE_LENGTH) {
      throw new IllegalArgumentException("receive work request (wrId " + wrId + "): length "
          + sgl.totalLength() + " exceeds the RDMAP maximum message length of "
          + SendWorkRequest.MAX_MESSAGE_LENGTH + " octets");
    }
  }

  /**
   * A readable form for diagnostics; it allocates.
   *
   * @return the id and the scatter/gather list
   */
  @Override
  public String toString() {
    return "RecvWorkRequest{wrId=" + wrId + ", sgl=" + sgl + '}';
  }
}
