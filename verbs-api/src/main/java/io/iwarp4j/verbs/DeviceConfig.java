package io.iwarp4j.verbs;

import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.rdmap.ReadResponseCopyBudget;
import java.time.Duration;
import java.util.Objects;

/**
 * How to open an {@link RdmaDevice}: its transport and event loop threads, the MPA settings its
 * connections use unless told otherwise, and its limits (the counterpart of
 * {@code ibv_device_attr}). Immutable; build with {@link #builder()}.
 */
public final class DeviceConfig {
  /**
   * The inline limit a queue pair gets when its configuration does not say: 80 octets, Linux
   * siw's {@code max_inline_data}, well below the MPA framer's copy threshold (512 by default).
   */
  public static final int DEFAULT_INLINE_DATA = 80;

  /**
   * The most inline octets a queue pair may ask for unless the device is configured otherwise:
   * 512, the MPA framer's default copy threshold, above which inline buys nothing on the wire.
   */
  public static final int DEFAULT_MAX_INLINE_DATA = 512;

  /** The highest maximum {@link Builder#maxInlineData(int, int)} accepts. */
  public static final int INLINE_DATA_LIMIT = 1 << 16;

  /**
   * Accepted connections one source address may have in the MPA startup at once unless told
   * otherwise: 64 (a client's MPA Request follows its TCP connect at once, so honest clients
   * spend a round trip there; the request timeout bounds everyone else).
   */
  public static final int DEFAULT_MAX_STARTUP_CONNECTIONS_PER_SOURCE = 64;

  /**
   * The default {@link #maxConnections()}: 16384 (2^14), room for a server's peers (10,000
   * connected queue pairs on one device are tested) while a flood of connections that never
   * finish their MPA startup holds at most that many sockets.
   */
  public static final int DEFAULT_MAX_CONNECTIONS = 1 << 14;

  /** The default {@link #maxQueuePairs()}: 16384 (2^14), as many as connections. */
  public static final int DEFAULT_MAX_QUEUE_PAIRS = 1 << 14;

  private static final DeviceConfig DEFAULTS = builder().build();

  private final Transport transport;
  private final int eventLoopThreads;
  private final MpaSettings mpaSettings;
  private final int maxQueuePairs;
  private final int maxConnections;
  private final int maxMemoryRegions;
  private final int maxCqe;
  private final int maxSendWr;
  private final int maxRecvWr;
  private final int maxSrqWr;
  private final int maxSge;
  private final int defaultSendWr;
  private final int defaultRecvWr;
  private final int defaultSge;
  private final int maxInlineData;
  private final int defaultInlineData;
  private final int defaultIrd;
  private final int defaultOrd;
  private final Duration connectTimeout;
  private final int writeBufferLowWaterMark;
  private final int writeBufferHighWaterMark;
  private final boolean rfc7306;
  private final boolean jmx;
  private final java.nio.file.Path pcapDirectory;
  private final long readResponseCopyBudget;
  private final int maxStartupConnectionsPerSource;
  private final boolean tcpKeepAlive;
  private final java.time.Duration tcpKeepIdle;
  private final java.time.Duration tcpKeepInterval;
  private final int tcpKeepCount;
  private final java.time.Duration tcpUserTimeout;
  private final PollMode pollMode;
  private final long awaitSpinNanos;

  private DeviceConfig(Builder b) {
    this.maxStartupConnectionsPerSource = b.maxStartupConnectionsPerSource;
    this.tcpKeepAlive = b.tcpKeepAlive;
    this.tcpKeepIdle = b.tcpKeepIdle;
    this.tcpKeepInterval = b.tcpKeepInterval;
    this.tcpKeepCount = b.tcpKeepCount;
    this.tcpUserTimeout = b.tcpUserTimeout;
    this.transport = b.transport;
    this.eventLoopThreads = b.eventLoopThreads;
    this.mpaSettings = b.mpaSettings;
    this.maxQueuePairs = b.maxQueuePairs;
    this.maxConnections = b.maxConnections;
    this.maxMemoryRegions = b.maxMemoryRegions;
    this.maxCqe = b.maxCqe;
    this.maxSendWr = b.maxSendWr;
    this.maxRecvWr = b.maxRecvWr;
    this.maxSrqWr = b.maxSrqWr;
    this.maxSge = b.maxSge;
    this.defaultSendWr = Math.min(b.defaultSendWr, b.maxSendWr);
    this.defaultRecvWr = Math.min(b.defaultRecvWr, b.maxRecvWr);
    this.defaultSge = Math.min(b.defaultSge, b.maxSge);
    this.maxInlineData = b.maxInlineData;
    this.defaultInlineData = Math.min(b.defaultInlineData, b.maxInlineData);
    this.defaultIrd = b.defaultIrd;
    this.defaultOrd = b.defaultOrd;
    this.connectTimeout = b.connectTimeout;
    this.writeBufferLowWaterMark = b.writeBufferLowWaterMark;
    this.writeBufferHighWaterMark = b.writeBufferHighWaterMark;
    this.rfc7306 = b.rfc7306;
    this.jmx = b.jmx;
    this.pcapDirectory = b.pcapDirectory;
    this.readResponseCopyBudget = b.readResponseCopyBudget;
    this.pollMode = b.pollMode;
    this.awaitSpinNanos = b.awaitSpinNanos;
  }

  /**
   * {@return the defaults}: AUTO transport, one event loop thread per processor, {@link
   * MpaSettings#defaults()}, and the limits listed on the builder's setters.
   */
  public static DeviceConfig defaults() {
    return DEFAULTS;
  }

  /** {@return a builder that starts from the defaults} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return the Netty transport: AUTO, EPOLL or NIO} */
  public Transport transport() {
    return transport;
  }

  /** {@return the number of event loop threads, at least 1}; each connection lives on one. */
  public int eventLoopThreads() {
    return eventLoopThreads;
  }

  /**
   * {@return the MPA settings connections start from}: CRC, Markers, revision, peer-to-peer and
   * RTR types, timeouts. Per-connection values (private data, IRD/ORD) come from {@link
   * ConnectParams} and {@link AcceptParams}.
   */
  public MpaSettings mpaSettings() {
    return mpaSettings;
  }

  /** {@return the most queue pairs open at once} */
  public int maxQueuePairs() {
    return maxQueuePairs;
  }

  /**
   * {@return the most TCP connections open at once}, accepted and initiated, counted from the
   * TCP accept (or connect) on: it also bounds connections still in the MPA startup, with no
   * queue pair yet. One accepted beyond it closes the oldest connection still in the MPA
   * startup (see {@link #maxStartupConnectionsPerSource()}), or with none there is closed
   * before anything is read; {@link RdmaDevice#connect} beyond it throws. Default {@value
   * #DEFAULT_MAX_CONNECTIONS}: a server's worth of peers, while bounding what peers can hold
   * without the application's consent (connections in the MPA startup: one socket, one file
   * descriptor and its channel state each).
   */
  public int maxConnections() {
    return maxConnections;
  }

  /** {@return the most memory regions registered at once}: the device's STag table capacity. */
  public int maxMemoryRegions() {
    return maxMemoryRegions;
  }

  /** {@return the largest completion queue capacity} */
  public int maxCqe() {
    return maxCqe;
  }

  /** {@return the deepest send queue a queue pair may have} */
  public int maxSendWr() {
    return maxSendWr;
  }

  /** {@return the deepest receive queue a queue pair may have} */
  public int maxRecvWr() {
    return maxRecvWr;
  }

  /** {@return the deepest shared receive queue: the verbs {@code max_srq_wr} device limit} */
  public int maxSrqWr() {
    return maxSrqWr;
  }

  /** {@return the most scatter/gather entries per work request} */
  public int maxSge() {
    return maxSge;
  }

  /** {@return the send queue depth of a queue pair whose configuration does not say} */
  public int defaultSendWr() {
    return defaultSendWr;
  }

  /** {@return the receive queue depth of a queue pair whose configuration does not say} */
  public int defaultRecvWr() {
    return defaultRecvWr;
  }

  /** {@return the SGEs per work request of a queue pair whose configuration does not say} */
  public int defaultSge() {
    return defaultSge;
  }

  /**
   * {@return the most octets a queue pair may allow one inline send work request to carry}
   * ({@link QueuePairConfig.Builder#maxInlineData(int)}); the verbs {@code max_inline_data}
   * device limit.
   */
  public int maxInlineData() {
    return maxInlineData;
  }

  /** {@return the inline limit of a queue pair whose configuration does not say} */
  public int defaultInlineData() {
    return defaultInlineData;
  }

  /** {@return the inbound RDMA Read depth of a queue pair whose configuration does not say} */
  public int defaultIrd() {
    return defaultIrd;
  }

  /** {@return the outbound RDMA Read depth of a queue pair whose configuration does not say} */
  public int defaultOrd() {
    return defaultOrd;
  }

  /**
   * {@return how long a TCP connect may take} before {@link RdmaDevice#connect} fails with
   * {@link RdmaTimeoutException}, unless {@link ConnectParams} says otherwise.
   */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /**
   * {@return whether queue pairs speak RFC 7306 (Atomics and Immediate Data) unless their
   * configuration says otherwise}; true by default. See {@link RdmaDevice#atomicCapability()}.
   */
  public boolean rfc7306() {
    return rfc7306;
  }

  /** {@return the low water mark}: below it (octets queued) a connection is writable again. */
  public int writeBufferLowWaterMark() {
    return writeBufferLowWaterMark;
  }

  /**
   * {@return the high water mark}: above it (octets queued) a connection stops being writable,
   * and its queue pair issues nothing until it is: the send path never buffers without bound.
   */
  public int writeBufferHighWaterMark() {
    return writeBufferHighWaterMark;
  }

  /**
   * {@return whether the device and each of its queue pairs publish their counters as MBeans} on
   * the platform MBeanServer ({@link CountersMXBean}): {@code io.iwarp4j:type=Device,name=<device>}
   * and {@code io.iwarp4j:type=QueuePair,device=<device>,qp=<number>}. Default false.
   */
  public boolean jmx() {
    return jmx;
  }

  /**
   * {@return the directory where each connection's TCP stream is written as a pcap file, or
   * null} (the default) for no capture. One file per connection, named
   * {@code <device>-<local port>-<remote host>-<remote port>.pcap}. A debugging aid: it copies
   * every octet into the file on the event loop.
   */
  public java.nio.file.Path pcapDirectory() {
    return pcapDirectory;
  }

  /**
   * {@return how many octets of Read Response snapshots the device's connections may hold at
   * once}. With CRC on, a Read Response goes out from a copy of its source, so that an RDMA Write
   * racing the Read cannot make the octets sent differ from their CRC; one that does not fit goes
   * out without a copy ({@link CountersSnapshot#readResponseZeroCopyFallbacks()}). 0 turns
   * snapshots off. Default 64 MiB.
   */
  public long readResponseCopyBudget() {
    return readResponseCopyBudget;
  }

  /**
   * {@return the most accepted connections from one source address that may be in the MPA
   * startup at once} (connected, MPA Request not yet received); one more from that address is
   * closed at once. With {@link #maxConnections()} reached, a new connection closes the oldest
   * one in the MPA startup instead of being refused. Together they keep one address that opens
   * connections and sends nothing from locking healthy clients out (docs/reliability.md,
   * "Admission").
   */
  public int maxStartupConnectionsPerSource() {
    return maxStartupConnectionsPerSource;
  }

  /** {@return whether connections set {@code SO_KEEPALIVE}} (default false) */
  public boolean tcpKeepAlive() {
    return tcpKeepAlive;
  }

  /**
   * {@return the idle time before the first keepalive probe ({@code TCP_KEEPIDLE}), or null for
   * the operating system's default}; used only with {@link #tcpKeepAlive()}
   */
  public java.time.Duration tcpKeepIdle() {
    return tcpKeepIdle;
  }

  /**
   * {@return the time between keepalive probes ({@code TCP_KEEPINTVL}), or null for the
   * operating system's default}; used only with {@link #tcpKeepAlive()}
   */
  public java.time.Duration tcpKeepInterval() {
    return tcpKeepInterval;
  }

  /**
   * {@return the unanswered keepalive probes before the connection is dropped
   * ({@code TCP_KEEPCNT}), or 0 for the operating system's default}; used only with
   * {@link #tcpKeepAlive()}
   */
  public int tcpKeepCount() {
    return tcpKeepCount;
  }

  /**
   * {@return how long sent data may stay unacknowledged before the kernel drops the connection
   * ({@code TCP_USER_TIMEOUT}, Linux, epoll transport only), or null for the operating system's
   * default}
   */
  public java.time.Duration tcpUserTimeout() {
    return tcpUserTimeout;
  }

  /**
   * {@return how the device's threads wait for work}: {@link PollMode#PARKED} (default) or
   * {@link PollMode#BUSY_POLL}, one spinning core per event loop (see {@link PollMode}).
   */
  public PollMode pollMode() {
    return pollMode;
  }

  /**
   * {@return how long {@link CompletionQueue#await} on the device's completion queues spins,
   * polling, before it parks}, in nanoseconds: {@link #DEFAULT_AWAIT_SPIN_NANOS} unless set, in
   * {@link PollMode#BUSY_POLL} only; 0 in {@link PollMode#PARKED}, which parks at once.
   */
  public long awaitSpinNanos() {
    return pollMode == PollMode.BUSY_POLL ? awaitSpinNanos : 0;
  }

  /** The default {@link #awaitSpinNanos()} in {@link PollMode#BUSY_POLL}: 200 µs. */
  public static final long DEFAULT_AWAIT_SPIN_NANOS = 200_000;

  @Override
  public String toString() {
    return "DeviceConfig{transport=" + transport + ", pollMode=" + pollMode
        + (pollMode == PollMode.BUSY_POLL ? "/" + awaitSpinNanos + "ns" : "")
        + ", eventLoopThreads=" + eventLoopThreads
        + ", mpa=" + mpaSettings + ", maxQueuePairs=" + maxQueuePairs + ", maxConnections="
        + maxConnections + ", maxMemoryRegions=" + maxMemoryRegions + ", maxCqe=" + maxCqe
        + ", maxSendWr=" + maxSendWr + ", maxRecvWr=" + maxRecvWr + ", maxSrqWr=" + maxSrqWr
        + ", maxSge=" + maxSge + ", maxInlineData=" + maxInlineData + "/" + defaultInlineData
        + ", ird=" + defaultIrd + ", ord=" + defaultOrd + ", connectTimeout=" + connectTimeout
        + ", writeBufferWaterMark="
        + writeBufferLowWaterMark + "/" + writeBufferHighWaterMark + ", rfc7306=" + rfc7306
        + ", readResponseCopyBudget=" + readResponseCopyBudget + (jmx ? ", jmx" : "")
        + (pcapDirectory != null ? ", pcap=" + pcapDirectory : "")
        + ", maxStartupConnectionsPerSource=" + maxStartupConnectionsPerSource
        + (tcpKeepAlive ? ", tcpKeepAlive=" + tcpKeepIdle + "/" + tcpKeepInterval + "/"
            + tcpKeepCount : "")
        + (tcpUserTimeout != null ? ", tcpUserTimeout=" + tcpUserTimeout : "") + '}';
  }

  /**
   * Builder; each setter checks its argument: one outside what its {@code @param} allows throws
   * {@link IllegalArgumentException} naming the setting and the value.
   */
  public static final class Builder {
    private Transport transport = Transport.AUTO;
    private int eventLoopThreads = Math.max(1, Runtime.getRuntime().availableProcessors());
    private MpaSettings mpaSettings = MpaSettings.defaults();
    private int maxQueuePairs = DEFAULT_MAX_QUEUE_PAIRS;
    private int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private int maxMemoryRegions = StagTable.DEFAULT_CAPACITY;
    private int maxCqe = 1 << 20;
    private int maxSendWr = 1 << 14;
    private int maxRecvWr = 1 << 14;
    private int maxSrqWr = 1 << 14;
    private int maxSge = 32;
    private int defaultSendWr = 128;
    private int defaultRecvWr = 128;
    private int defaultSge = 4;
    private int maxInlineData = DEFAULT_MAX_INLINE_DATA;
    private int defaultInlineData = DEFAULT_INLINE_DATA;
    private int defaultIrd = 16;
    private int defaultOrd = 16;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private boolean rfc7306 = true;
    private boolean jmx;
    private java.nio.file.Path pcapDirectory;
    private int writeBufferLowWaterMark = 256 * 1024;
    private int writeBufferHighWaterMark = 512 * 1024;
    private long readResponseCopyBudget = ReadResponseCopyBudget.DEFAULT_CAPACITY;
    private int maxStartupConnectionsPerSource = DEFAULT_MAX_STARTUP_CONNECTIONS_PER_SOURCE;
    private boolean tcpKeepAlive;
    private java.time.Duration tcpKeepIdle;
    private java.time.Duration tcpKeepInterval;
    private int tcpKeepCount;
    private java.time.Duration tcpUserTimeout;
    private PollMode pollMode = PollMode.PARKED;
    private long awaitSpinNanos = DEFAULT_AWAIT_SPIN_NANOS;

    private Builder() {
    }

    /**
     * Sets the most accepted connections from one source address in the MPA startup at once
     * (default {@value DeviceConfig#DEFAULT_MAX_STARTUP_CONNECTIONS_PER_SOURCE}; see
     * {@link DeviceConfig#maxStartupConnectionsPerSource()}).
     *
     * @param n at least 1
     * @return this builder
     */
    public Builder maxStartupConnectionsPerSource(int n) {
      this.maxStartupConnectionsPerSource =
          ConfigChecks.atLeast("maxStartupConnectionsPerSource", n, 1);
      return this;
    }

    /**
     * Sets how the device's threads wait for work (default {@link PollMode#PARKED}); see
     * {@link PollMode} for what {@link PollMode#BUSY_POLL} costs.
     *
     * @param mode the mode
     * @return this builder
     */
    public Builder pollMode(PollMode mode) {
      this.pollMode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /**
     * Turns {@code SO_KEEPALIVE} on or off for every connection (default off) with the
     * operating system's probe timing.
     *
     * @param on whether to send keepalive probes
     * @return this builder
     */
    public Builder tcpKeepAlive(boolean on) {
      this.tcpKeepAlive = on;
      if (!on) {
        tcpKeepIdle = null;
        tcpKeepInterval = null;
        tcpKeepCount = 0;
      }
      return this;
    }

    /**
     * Turns {@code SO_KEEPALIVE} on with this probe timing ({@code TCP_KEEPIDLE},
     * {@code TCP_KEEPINTVL}, {@code TCP_KEEPCNT}): a peer that stops answering is dropped after
     * about {@code idle + count * interval} of silence, and its queue pair goes to ERROR.
     *
     * @param idle silence before the first probe, 1 s to 32767 s, whole seconds
     * @param interval time between probes, 1 s to 32767 s, whole seconds
     * @param count probes unanswered before the drop, 1 to 127
     * @return this builder
     */
    public Builder tcpKeepAlive(java.time.Duration idle, java.time.Duration interval, int count) {
      this.tcpKeepIdle = ConfigChecks.wholeSeconds("tcpKeepIdle", idle, 32767);
      this.tcpKeepInterval = ConfigChecks.wholeSeconds("tcpKeepInterval", interval, 32767);
      this.tcpKeepCount = ConfigChecks.range("tcpKeepCount", count, 1, 127, "");
      this.tcpKeepAlive = true;
      return this;
    }

    /**
     * Sets {@code TCP_USER_TIMEOUT} for every connection: data the peer leaves unacknowledged
     * this long (a peer that stalls, or a path that died) makes the kernel drop the connection,
     * and its queue pair goes to ERROR with its work flushed. Linux with the epoll transport
     * only; on NIO it is not applied (the device logs a warning when it opens). Default: the
     * operating system's (none: TCP retransmits for about 15 minutes).
     *
     * @param timeout 1 ms to 2^31 - 1 ms, or null for the operating system's default
     * @return this builder
     */
    public Builder tcpUserTimeout(java.time.Duration timeout) {
      if (timeout != null && (timeout.toMillis() < 1 || timeout.toMillis() > Integer.MAX_VALUE)) {
        throw new IllegalArgumentException("tcpUserTimeout must be 1 ms to 2^31 - 1 ms, got "
            + timeout);
      }
      this.tcpUserTimeout = timeout;
      return this;
    }

    /**
     * Sets how long {@link CompletionQueue#await} spins before it parks in
     * {@link PollMode#BUSY_POLL} (default {@value DeviceConfig#DEFAULT_AWAIT_SPIN_NANOS} ns;
     * ignored when parked).
     *
     * @param spin 0 (park at once) to 1 s
     * @return this builder
     */
    public Builder awaitSpin(Duration spin) {
      Objects.requireNonNull(spin, "spin");
      if (spin.isNegative() || spin.compareTo(Duration.ofSeconds(1)) > 0) {
        throw new IllegalArgumentException("awaitSpin " + spin + " is outside 0..1 s");
      }
      this.awaitSpinNanos = spin.toNanos();
      return this;
    }

    /**
     * Sets the transport (default AUTO: epoll where available, else NIO).
     *
     * @param transport the transport
     * @return this builder
     */
    public Builder transport(Transport transport) {
      this.transport = Objects.requireNonNull(transport, "transport");
      return this;
    }

    /**
     * Sets the number of event loop threads (default: one per processor).
     *
     * @param threads at least 1
     * @return this builder
     */
    public Builder eventLoopThreads(int threads) {
      this.eventLoopThreads = ConfigChecks.atLeast("eventLoopThreads", threads, 1);
      return this;
    }

    /**
     * Sets the MPA settings connections start from (default {@link MpaSettings#defaults()}).
     *
     * @param settings the settings
     * @return this builder
     */
    public Builder mpaSettings(MpaSettings settings) {
      this.mpaSettings = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /**
     * Sets the most queue pairs open at once (default
     * {@value DeviceConfig#DEFAULT_MAX_QUEUE_PAIRS}).
     *
     * @param n at least 1
     * @return this builder
     */
    public Builder maxQueuePairs(int n) {
      this.maxQueuePairs = ConfigChecks.atLeast("maxQueuePairs", n, 1);
      return this;
    }

    /**
     * Sets the most TCP connections open at once, including those still in the MPA startup
     * (default {@value DeviceConfig#DEFAULT_MAX_CONNECTIONS}; see
     * {@link DeviceConfig#maxConnections()}).
     *
     * @param n at least 1
     * @return this builder
     */
    public Builder maxConnections(int n) {
      this.maxConnections = ConfigChecks.atLeast("maxConnections", n, 1);
      return this;
    }

    /**
     * Sets the most memory regions registered at once (default 65536).
     *
     * @param n 1 to 2^24 - 1 (the STag's 24-bit index)
     * @return this builder
     */
    public Builder maxMemoryRegions(int n) {
      this.maxMemoryRegions = ConfigChecks.range("maxMemoryRegions", n, 1, StagTable.MAX_CAPACITY,
          " (24-bit STag index)");
      return this;
    }

    /**
     * Sets the largest completion queue capacity (default 2^20).
     *
     * @param n 1 to {@value CompletionQueue#MAX_CAPACITY}
     * @return this builder
     */
    public Builder maxCqe(int n) {
      this.maxCqe = ConfigChecks.range("maxCqe", n, 1, CompletionQueue.MAX_CAPACITY, "");
      return this;
    }

    /**
     * Sets the deepest send queue (default 2^14).
     *
     * @param n at least 1
     * @return this builder
     */
    public Builder maxSendWr(int n) {
      this.maxSendWr = ConfigChecks.atLeast("maxSendWr", n, 1);
      return this;
    }

    /**
     * Sets the deepest receive queue (default 2^14).
     *
     * @param n at least 1
     * @return this builder
     */
    public Builder maxRecvWr(int n) {
      this.maxRecvWr = ConfigChecks.atLeast("maxRecvWr", n, 1);
      return this;
    }

    /**
     * Sets the deepest shared receive queue (default 2^14, {@code max_srq_wr}).
     *
     * @param n 1 to {@link io.iwarp4j.verbs.internal.MpmcSlotRing#MAX_CAPACITY}
     * @return this builder
     */
    public Builder maxSrqWr(int n) {
      this.maxSrqWr = ConfigChecks.range("maxSrqWr", n, 1,
          io.iwarp4j.verbs.internal.MpmcSlotRing.MAX_CAPACITY, "the ring's largest capacity");
      return this;
    }

    /**
     * Sets the most scatter/gather entries per work request (default 32).
     *
     * @param n 1 to {@value ScatterGatherList#MAX_CAPACITY}
     * @return this builder
     */
    public Builder maxSge(int n) {
      this.maxSge = ConfigChecks.range("maxSge", n, 1, ScatterGatherList.MAX_CAPACITY, "");
      return this;
    }

    /**
     * Sets the default queue depths and SGE count of queue pairs whose configuration does not
     * say (defaults 128, 128, 4). Each default is capped by its maximum ({@link #maxSendWr},
     * {@link #maxRecvWr}, {@link #maxSge}), and so is the default inline limit.
     *
     * @param sendWr default send queue depth, at least 1
     * @param recvWr default receive queue depth, at least 1
     * @param sge default SGEs per work request, at least 1
     * @return this builder
     */
    public Builder queuePairDefaults(int sendWr, int recvWr, int sge) {
      this.defaultSendWr = ConfigChecks.atLeast("default send WRs", sendWr, 1);
      this.defaultRecvWr = ConfigChecks.atLeast("default receive WRs", recvWr, 1);
      this.defaultSge = ConfigChecks.atLeast("default SGEs", sge, 1);
      return this;
    }

    /**
     * Sets the most inline octets a queue pair may ask for (default
     * {@value DeviceConfig#DEFAULT_MAX_INLINE_DATA}) and the limit a queue pair gets when its
     * configuration does not say (default {@value DeviceConfig#DEFAULT_INLINE_DATA}, capped by
     * the maximum); see {@link SendFlags#INLINE}.
     *
     * @param max 0 to {@value DeviceConfig#INLINE_DATA_LIMIT}
     * @param dflt 0 or more
     * @return this builder
     */
    public Builder maxInlineData(int max, int dflt) {
      this.maxInlineData = ConfigChecks.range("maxInlineData", max, 0, INLINE_DATA_LIMIT, "");
      this.defaultInlineData = ConfigChecks.atLeast("default inline data", dflt, 0);
      return this;
    }

    /**
     * Sets the default inbound RDMA Read depth (default 16).
     *
     * @param ird 0 to 0x3FFE
     * @return this builder
     */
    public Builder defaultIrd(int ird) {
      this.defaultIrd = QueuePairConfig.Builder.depth("IRD", ird);
      return this;
    }

    /**
     * Sets the default outbound RDMA Read depth (default 16).
     *
     * @param ord 0 to 0x3FFE
     * @return this builder
     */
    public Builder defaultOrd(int ord) {
      this.defaultOrd = QueuePairConfig.Builder.depth("ORD", ord);
      return this;
    }

    /**
     * Sets whether queue pairs speak RFC 7306 by default (default true). Without it a queue pair
     * refuses to post Atomics and Immediate Data, and answers a peer's with Terminate "Unexpected
     * OpCode" (0/2/0x06), as Linux siw does.
     *
     * @param enabled whether the RFC 7306 extensions are on
     * @return this builder
     */
    public Builder rfc7306(boolean enabled) {
      this.rfc7306 = enabled;
      return this;
    }

    /**
     * Sets the TCP connect timeout (default 10 s).
     *
     * @param timeout positive
     * @return this builder
     */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = ConfigChecks.positive("connectTimeout", timeout);
      return this;
    }

    /**
     * Sets the channels' write buffer water marks (default 256 KiB / 512 KiB): above {@code high}
     * octets queued for the socket a queue pair stops issuing, below {@code low} it resumes.
     *
     * @param low the low water mark, at least 1
     * @param high the high water mark, at least {@code low}
     * @return this builder
     */
    public Builder writeBufferWaterMark(int low, int high) {
      ConfigChecks.waterMarks(low, high);
      this.writeBufferLowWaterMark = low;
      this.writeBufferHighWaterMark = high;
      return this;
    }

    /**
     * Publishes the device's and its queue pairs' counters as MBeans ({@link DeviceConfig#jmx()}).
     *
     * @param enabled true to register the MBeans
     * @return this builder
     */
    public Builder jmx(boolean enabled) {
      this.jmx = enabled;
      return this;
    }

    /**
     * Writes every connection's TCP stream to a pcap file in {@code directory} (see
     * {@link DeviceConfig#pcapDirectory()}); null turns capturing off. The directory is created
     * when the first connection opens.
     *
     * @param directory the directory, or null
     * @return this builder
     */
    public Builder pcapDirectory(java.nio.file.Path directory) {
      this.pcapDirectory = directory;
      return this;
    }

    /**
     * Sets how many octets of Read Response snapshots the device's connections may hold at once
     * (default 64 MiB; see {@link DeviceConfig#readResponseCopyBudget()}).
     *
     * @param octets at least 0; 0 sends every Read Response without a copy
     * @return this builder
     */
    public Builder readResponseCopyBudget(long octets) {
      this.readResponseCopyBudget = ConfigChecks.atLeast("readResponseCopyBudget", octets, 0L);
      return this;
    }

    /** {@return the configuration} */
    public DeviceConfig build() {
      return new DeviceConfig(this);
    }
  }
}
