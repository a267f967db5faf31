package io.iwarp4j.verbs;

import java.util.Objects;

/**
 * How to accept a {@link ConnectRequest}: private data for the MPA Reply, the IRD/ORD to state,
 * and a listener for the connection's events. Immutable; build with {@link #builder()}. Unset
 * depths come from the accepting queue pair.
 */
public final class AcceptParams {
  private static final AcceptParams DEFAULTS = builder().build();

  private final byte[] privateData;
  private final int ird;
  private final int ord;
  private final ConnectionEventListener eventListener;

  private AcceptParams(Builder b) {
    this.privateData = b.privateData.clone();
    this.ird = b.ird;
    this.ord = b.ord;
    this.eventListener = b.eventListener;
  }

  /**
   * No private data, the queue pair's IRD/ORD, no listener.
   *
   * @return the defaults
   */
  public static AcceptParams defaults() {
    return DEFAULTS;
  }

  /**
   * Starts building.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The private data for the Reply.
   *
   * @return a copy
   */
  public byte[] privateData() {
    return privateData.clone();
  }

  /**
   * The IRD to state.
   *
   * @return the IRD, or -1 for the queue pair's
   */
  public int ird() {
    return ird;
  }

  /**
   * The ORD to state.
   *
   * @return the ORD, or -1 for the queue pair's
   */
  public int ord() {
    return ord;
  }

  /**
   * The event listener.
   *
   * @return the listener, or null
   */
  public ConnectionEventListener eventListener() {
    return eventListener;
  }

  /** Builder. */
  public static final class Builder {
    private byte[] privateData = new byte[0];
    private int ird = -1;
    private int ord = -1;
    private ConnectionEventListener eventListener;

    private Builder() {
    }

    /**
     * Sets the private data of the MPA Reply: at most 508 octets for an enhanced Request, 512
     * otherwise.
     *
     * @param data the octets (copied)
     * @return this builder
     */
    public Builder privateData(byte[] data) {
      this.privateData = Objects.requireNonNull(data, "data").clone();
      return this;
    }

    /**
     * Sets the inbound RDMA Read depth to state (default: the queue pair's).
     *
     * @param ird 0 to 0x3FFE
     * @return this builder
     */
    public Builder ird(int ird) {
      this.ird = QueuePairConfig.Builder.depth("IRD", ird);
      return this;
    }

    /**
     * Sets the outbound RDMA Read depth to state (default: the queue pair's).
     *
     * @param ord 0 to 0x3FFE
     * @return this builder
     */
    public Builder ord(int ord) {
      this.ord = QueuePairConfig.Builder.depth("ORD", ord);
      return this;
    }

    /**
     * Sets the listener for the connection's events.
     *
     * @param listener the listener, or null
     * @return this builder
     */
    public Builder eventListener(ConnectionEventListener listener) {
      this.eventListener = listener;
      return this;
    }

    /**
     * Builds the parameters.
     *
     * @return the parameters
     */
    public AcceptParams build() {
      return new AcceptParams(this);
    }
  }
}
