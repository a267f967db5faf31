package io.iwarp4j.verbs;

/**
 * How to create a {@link SharedReceiveQueue}, the counterpart of
 * {@code struct ibv_srq_init_attr}: its depth, its scatter/gather limit, an optional initial
 * limit and the listener of its limit event. Immutable; build with {@link #builder()}.
 */
public final class SharedReceiveQueueConfig {
  /** Marks a limit that takes the device's default. */
  static final int DEVICE_DEFAULT = -1;

  private final int maxWr;
  private final int maxSge;
  private final int limit;
  private final SharedReceiveQueueListener listener;

  private SharedReceiveQueueConfig(Builder b) {
    this.maxWr = b.maxWr;
    this.maxSge = b.maxSge;
    this.limit = b.limit;
    this.listener = b.listener;
  }

  /**
   * Starts a configuration: the device's default receive depth (at most its maxSrqWr) and SGE
   * count, no limit armed, no listener.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The depth asked for, or -1 for the device's default receive depth.
   *
   * @return the depth
   */
  public int maxWr() {
    return maxWr;
  }

  /**
   * The SGEs per receive asked for, or -1 for the device's default.
   *
   * @return the SGE count
   */
  public int maxSge() {
    return maxSge;
  }

  /**
   * The limit armed at creation, 0 for none.
   *
   * @return the limit
   */
  public int limit() {
    return limit;
  }

  /**
   * Who hears of the limit event, or null.
   *
   * @return the listener
   */
  public SharedReceiveQueueListener listener() {
    return listener;
  }

  @Override
  public String toString() {
    return "SharedReceiveQueueConfig{maxWr=" + maxWr + ", maxSge=" + maxSge + ", limit=" + limit
        + (listener != null ? ", listener" : "") + '}';
  }

  /** Builder; each setter checks its argument and names the problem when it is wrong. */
  public static final class Builder {
    private int maxWr = DEVICE_DEFAULT;
    private int maxSge = DEVICE_DEFAULT;
    private int limit;
    private SharedReceiveQueueListener listener;

    private Builder() {
    }

    /**
     * Sets the depth ({@code attr.max_wr}): the most receives posted and not yet taken.
     *
     * @param n at least 1; at most the device's {@link DeviceConfig#maxSrqWr()}
     * @return this builder
     * @throws IllegalArgumentException if {@code n < 1}
     */
    public Builder maxWr(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxWr must be at least 1, not " + n);
      }
      this.maxWr = n;
      return this;
    }

    /**
     * Sets the scatter/gather entries per receive ({@code attr.max_sge}).
     *
     * @param n at least 1; at most the device's {@link DeviceConfig#maxSge()}
     * @return this builder
     * @throws IllegalArgumentException if {@code n < 1}
     */
    public Builder maxSge(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxSge must be at least 1, not " + n);
      }
      this.maxSge = n;
      return this;
    }

    /**
     * Arms the limit event at creation ({@code attr.srq_limit}), as
     * {@link SharedReceiveQueue#armLimit(int)} does later.
     *
     * @param n 0 (none, the default) up to the depth
     * @return this builder
     * @throws IllegalArgumentException if {@code n < 0}
     */
    public Builder limit(int n) {
      if (n < 0) {
        throw new IllegalArgumentException("limit must be at least 0, not " + n);
      }
      this.limit = n;
      return this;
    }

    /**
     * Sets who hears of the limit event (the {@code IBV_EVENT_SRQ_LIMIT_REACHED} async event).
     *
     * @param listener the listener, or null for none
     * @return this builder
     */
    public Builder listener(SharedReceiveQueueListener listener) {
      this.listener = listener;
      return this;
    }

    /**
     * Builds the configuration.
     *
     * @return the configuration
     */
    public SharedReceiveQueueConfig build() {
      return new SharedReceiveQueueConfig(this);
    }
  }
}
