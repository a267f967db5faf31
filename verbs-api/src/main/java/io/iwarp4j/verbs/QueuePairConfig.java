package io.iwarp4j.verbs;

import java.util.Objects;

/**
 * How to create a {@link QueuePair}, the counterpart of {@code ibv_qp_init_attr}: its completion
 * queues, queue depths, scatter/gather limits and RDMA Read depths. Immutable; build with
 * {@link #builder(CompletionQueue, CompletionQueue)}. Limits left unset take the device's
 * defaults ({@link DeviceConfig}).
 */
public final class QueuePairConfig {
  /** Marks a limit that takes the device's default. */
  static final int DEVICE_DEFAULT = -1;

  private final CompletionQueue sendCq;
  private final CompletionQueue recvCq;
  private final int maxSendWr;
  private final int maxRecvWr;
  private final int maxSendSge;
  private final int maxRecvSge;
  private final int ird;
  private final int ord;
  private final boolean signalAllSends;
  private final Boolean rfc7306;
  private final int maxInlineData;
  private final SharedReceiveQueue srq;

  private QueuePairConfig(Builder b) {
    this.sendCq = b.sendCq;
    this.recvCq = b.recvCq;
    this.maxSendWr = b.maxSendWr;
    this.maxRecvWr = b.maxRecvWr;
    this.maxSendSge = b.maxSendSge;
    this.maxRecvSge = b.maxRecvSge;
    this.ird = b.ird;
    this.ord = b.ord;
    this.signalAllSends = b.signalAllSends;
    this.rfc7306 = b.rfc7306;
    this.maxInlineData = b.maxInlineData;
    this.srq = b.srq;
  }

  /**
   * The shared receive queue the queue pair takes its receives from ({@code init_attr.srq}), or
   * null for a receive queue of its own.
   *
   * @return the shared receive queue, or null
   */
  public SharedReceiveQueue sharedReceiveQueue() {
    return srq;
  }

  /**
   * Whether the queue pair speaks RFC 7306, or null for the device's default
   * ({@link DeviceConfig#rfc7306()}).
   *
   * @return the setting, or null
   */
  public Boolean rfc7306() {
    return rfc7306;
  }

  /**
   * Starts a configuration.
   *
   * @param sendCq where send work requests complete
   * @param recvCq where receive work requests complete; may be the same queue as {@code sendCq}
   * @return a builder with every limit at the device default
   */
  public static Builder builder(CompletionQueue sendCq, CompletionQueue recvCq) {
    return new Builder(sendCq, recvCq);
  }

  /**
   * Where send work requests complete.
   *
   * @return the send completion queue
   */
  public CompletionQueue sendCq() {
    return sendCq;
  }

  /**
   * Where receive work requests complete.
   *
   * @return the receive completion queue
   */
  public CompletionQueue recvCq() {
    return recvCq;
  }

  /**
   * The send queue depth asked for.
   *
   * @return the depth, or -1 for the device default
   */
  public int maxSendWr() {
    return maxSendWr;
  }

  /**
   * The receive queue depth asked for.
   *
   * @return the depth, or -1 for the device default
   */
  public int maxRecvWr() {
    return maxRecvWr;
  }

  /**
   * The scatter/gather entries per send work request asked for.
   *
   * @return the count, or -1 for the device default
   */
  public int maxSendSge() {
    return maxSendSge;
  }

  /**
   * The scatter/gather entries per receive work request asked for.
   *
   * @return the count, or -1 for the device default
   */
  public int maxRecvSge() {
    return maxRecvSge;
  }

  /**
   * The most inline octets per send work request asked for ({@link SendFlags#INLINE}).
   *
   * @return the limit, or -1 for the device default ({@link DeviceConfig#defaultInlineData()})
   */
  public int maxInlineData() {
    return maxInlineData;
  }

  /**
   * The inbound RDMA Read depth asked for.
   *
   * @return the depth, or -1 for the device default
   */
  public int ird() {
    return ird;
  }

  /**
   * The outbound RDMA Read depth asked for.
   *
   * @return the depth, or -1 for the device default
   */
  public int ord() {
    return ord;
  }

  /**
   * Whether every send work request completes as if {@link SendFlags#SIGNALED} were set (the
   * verbs {@code sq_sig_all}).
   *
   * @return true when all sends are signaled
   */
  public boolean signalAllSends() {
    return signalAllSends;
  }

  @Override
  public String toString() {
    return "QueuePairConfig{maxSendWr=" + maxSendWr + ", maxRecvWr=" + maxRecvWr
        + ", maxSendSge=" + maxSendSge + ", maxRecvSge=" + maxRecvSge
        + ", maxInlineData=" + maxInlineData + ", ird=" + ird
        + ", ord=" + ord + ", signalAllSends=" + signalAllSends + '}';
  }

  /** Builder; each setter checks its argument and names the problem when it is wrong. */
  public static final class Builder {
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private int maxSendWr = DEVICE_DEFAULT;
    private int maxRecvWr = DEVICE_DEFAULT;
    private int maxSendSge = DEVICE_DEFAULT;
    private int maxRecvSge = DEVICE_DEFAULT;
    private int maxInlineData = DEVICE_DEFAULT;
    private int ird = DEVICE_DEFAULT;
    private int ord = DEVICE_DEFAULT;
    private boolean signalAllSends;
    private Boolean rfc7306;
    private SharedReceiveQueue srq;

    private Builder(CompletionQueue sendCq, CompletionQueue recvCq) {
      this.sendCq = Objects.requireNonNull(sendCq, "sendCq");
      this.recvCq = Objects.requireNonNull(recvCq, "recvCq");
    }

    /**
     * Sets the send queue depth.
     *
     * @param n at least 1; at most the device's {@link DeviceConfig#maxSendWr()}
     * @return this builder
     * @throws IllegalArgumentException if {@code n < 1}
     */
    public Builder maxSendWr(int n) {
      this.maxSendWr = positive("maxSendWr", n);
      return this;
    }

    /**
     * Sets the receive queue depth.
     *
     * @param n at least 1; at most the device's {@link DeviceConfig#maxRecvWr()}
     * @return this builder
     * @throws IllegalArgumentException if {@code n < 1}
     */
    public Builder maxRecvWr(int n) {
      this.maxRecvWr = positive("maxRecvWr", n);
      return this;
    }

    /**
     * Sets the scatter/gather entries per send work request.
     *
     * @param n at least 1; at most the device's {@link DeviceConfig#maxSge()}
     * @return this builder
     * @throws IllegalArgumentException if {@code n < 1}
     */
    public Builder maxSendSge(int n) {
      this.maxSendSge = positive("maxSendSge", n);
      return this;
    }

    /**
     * Sets the scatter/gather entries per receive work request.
     *
     * @param n at least 1; at most the device's {@link DeviceConfig#maxSge()}
     * @return this builder
     * @throws IllegalArgumentException if {@code n < 1}
     */
    public Builder maxRecvSge(int n) {
      this.maxRecvSge = positive("maxRecvSge", n);
      return this;
    }

    /**
     * Sets the most octets one {@link SendFlags#INLINE} send work request may carry (the verbs
     * {@code cap.max_inline_data}). Each send queue slot keeps that many octets, made with the
     * slot, so the limit costs about {@code 2 x maxSendWr x n} octets of heap per queue pair.
     *
     * @param n 0 (no inline sends) or more; at most the device's
     *     {@link DeviceConfig#maxInlineData()}
     * @return this builder
     * @throws IllegalArgumentException if {@code n < 0}
     */
    public Builder maxInlineData(int n) {
      if (n < 0) {
        throw new IllegalArgumentException("maxInlineData must be at least 0, not " + n);
      }
      this.maxInlineData = n;
      return this;
    }

    /**
     * Sets the inbound RDMA Read depth offered to peers.
     *
     * @param n 0 to 0x3FFE
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder ird(int n) {
      this.ird = depth("IRD", n);
      return this;
    }

    /**
     * Sets the outbound RDMA Read depth asked of peers.
     *
     * @param n 0 to 0x3FFE
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder ord(int n) {
      this.ord = depth("ORD", n);
      return this;
    }

    /**
     * Makes every send work request signaled, whatever its flags say.
     *
     * @param all true for the verbs {@code sq_sig_all} behaviour
     * @return this builder
     */
    public Builder signalAllSends(boolean all) {
      this.signalAllSends = all;
      return this;
    }

    /**
     * Sets whether this queue pair speaks RFC 7306 (Atomics, Immediate Data), overriding the
     * device's default. Turn it off toward a peer without RFC 7306 to fail such posts locally
     * instead of getting the peer's Terminate.
     *
     * @param enabled whether the RFC 7306 extensions are on
     * @return this builder
     */
    public Builder rfc7306(boolean enabled) {
      this.rfc7306 = enabled;
      return this;
    }

    /**
     * Attaches the queue pair to a shared receive queue, like {@code ibv_qp_init_attr.srq}:
     * incoming Sends and Immediate Data consume the shared queue's receives, and the queue
     * pair's own {@link QueuePair#postRecv} is refused. {@link #maxRecvWr} and {@link
     * #maxRecvSge} are then ignored. The shared queue must belong to the queue pair's protection
     * domain.
     *
     * @param srq the shared receive queue, or null for a receive queue of its own (the default)
     * @return this builder
     */
    public Builder sharedReceiveQueue(SharedReceiveQueue srq) {
      this.srq = srq;
      return this;
    }

    /**
     * Builds the configuration.
     *
     * @return the configuration
     */
    public QueuePairConfig build() {
      return new QueuePairConfig(this);
    }

    private static int positive(String what, int n) {
      if (n < 1) {
        throw new IllegalArgumentException(what + " must be at least 1, not " + n);
      }
      return n;
    }

    static int depth(String what, int n) {
      // 0x3FFF means "no negotiation" in RFC 6581; a queue pair states a real depth.
      if (n < 0 || n > 0x3FFE) {
        throw new IllegalArgumentException(what + " must be 0..0x3FFE, not " + n);
      }
      return n;
    }
  }
}
