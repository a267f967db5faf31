package io.iwarp4j.verbs;

import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.mpa.FpduBoundaryClose;
import io.iwarp4j.rdmap.ReadResponseCopyBudget;
import io.iwarp4j.verbs.engine.QpLoop;
import io.iwarp4j.verbs.engine.QpLoops;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.JMException;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A software iWARP device, the counterpart of an opened {@code ibv_context} together with its
 * {@code rdma_cm} event channel: the event loop threads every connection runs on, the STag
 * space of its memory regions, its limits, and the connection manager
 * ({@link #listen}, {@link #connect}).
 *
 * <pre>{@code
 * try (RdmaDevice device = RdmaDevice.open(DeviceConfig.defaults())) {
 *   ProtectionDomain pd = device.allocateProtectionDomain();
 *   MemoryRegion mr = pd.allocate(4096, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
 *   CompletionQueue cq = device.createCompletionQueue(256);
 *   QueuePair qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq).build());
 *   RdmaConnection connection = device.connect(qp, new InetSocketAddress(host, port)).get();
 *   ...
 * }
 * }</pre>
 *
 * <p>{@link #close()} shuts everything down in order: listeners, queue pairs (flushing their
 * work requests and closing their connections), remaining connections, completion queues,
 * completion channels, memory regions and protection domains, then the event loop threads.
 */
public final class RdmaDevice implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RdmaDevice.class);
  private static final AtomicInteger DEVICES = new AtomicInteger();

  private final DeviceConfig config;
  private final io.iwarp4j.mpa.Transport transport;
  private final EventLoopGroup group;
  /** One shared {@link QpLoop} per event loop: the queue pairs' drains batch per loop. */
  private final QpLoops qpLoops;
  private final StagTable stags;
  private final String name;
  private final AtomicInteger nextQpNumber = new AtomicInteger(1);
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Set<QueuePair> queuePairs = ConcurrentHashMap.newKeySet();
  private final Set<ProtectionDomain> domains = ConcurrentHashMap.newKeySet();
  private final Set<CompletionQueue> completionQueues = ConcurrentHashMap.newKeySet();
  private final Set<CompletionChannel> completionChannels = ConcurrentHashMap.newKeySet();
  private final Set<RdmaListener> listeners = ConcurrentHashMap.newKeySet();
  /** One bound for closing every queue pair and connection of the device. */
  static final long CLOSE_BOUND_MILLIS = 10_000;
  /**
   * How long a connection's written octets may take to leave at device close before it is
   * reset rather than closed with a FIN.
   */
  static final long CHANNEL_CLOSE_BOUND_MILLIS = 2_000;
  /** The counters of the open queue pairs and of those closed so far. */
  private final DeviceCounters deviceCounters = new DeviceCounters();
  /** Wake-ups of the device's event loops and of threads waiting on its queues and channels. */
  private final WakeUpCounters wakeUps = new WakeUpCounters();
  /** Listening, connecting, and the connections' admission, limits and set-up. */
  private final DeviceLinks links;
  /** The device's counters MBean, or null. */
  private final ObjectName countersMBean;
  /** Octets of Read Response snapshots held by the device's connections (all event loops). */
  private final ReadResponseCopyBudget readResponseCopies;

  private RdmaDevice(DeviceConfig config) {
    this.config = config;
    this.readResponseCopies = new ReadResponseCopyBudget(config.readResponseCopyBudget());
    if (config.tcpUserTimeout() != null
        && config.transport().mpa().resolve() != io.iwarp4j.mpa.Transport.EPOLL) {
      log.warn("DeviceConfig.tcpUserTimeout {} is not applied: the NIO transport has no "
          + "TCP_USER_TIMEOUT (docs/configuration.md)", config.tcpUserTimeout());
    }
    this.transport = config.transport().mpa().resolve();
    this.name = "iwarp4j-" + DEVICES.incrementAndGet();
    this.stags = new StagTable(config.maxMemoryRegions());
    this.group = transport.newEventLoopGroup(config.eventLoopThreads(),
        new DefaultThreadFactory(name, true), config.pollMode() == PollMode.BUSY_POLL);
    this.qpLoops = new QpLoops(group);
    this.links = new DeviceLinks(config, name, transport, group, deviceCounters);
    this.countersMBean = config.jmx() ? registerMBean() : null;
    log.debug("opened device {} on {}: {}", name, transport, config);
  }

  private ObjectName registerMBean() {
    try {
      return CountersMBean.register(CountersMBean.deviceName(name), this::counters);
    } catch (JMException e) {
      log.warn("device {}: no counters MBean: {}", name, e.toString());
      return null;
    }
  }

  /**
   * Opens a device.
   *
   * @param config threads, transport, MPA defaults, limits
   * @return the open device
   * @throws IllegalStateException when the configured transport is unavailable
   */
  public static RdmaDevice open(DeviceConfig config) {
    return new RdmaDevice(Objects.requireNonNull(config, "config"));
  }

  /**
   * Opens a device with {@link DeviceConfig#defaults()}.
   *
   * @return the open device
   */
  public static RdmaDevice open() {
    return open(DeviceConfig.defaults());
  }

  /**
   * What the device was opened with.
   *
   * @return the configuration
   */
  public DeviceConfig config() {
    return config;
  }

  /** The budget every connection's Read Response snapshots are charged to. */
  ReadResponseCopyBudget readResponseCopies() {
    return readResponseCopies;
  }

  /**
   * The transport in use: EPOLL or NIO.
   *
   * @return the resolved transport
   */
  public Transport transport() {
    return Transport.of(transport);
  }

  /**
   * The atomicity this device gives RFC 7306 Atomics, like {@code ibv_device_attr.atomic_cap}:
   * {@link AtomicCapability#DEVICE} unless RFC 7306 is disabled by {@link DeviceConfig#rfc7306()}.
   *
   * @return the atomic capability of queue pairs that use the device default
   */
  public AtomicCapability atomicCapability() {
    return config.rfc7306() ? AtomicCapability.DEVICE : AtomicCapability.NONE;
  }

  /**
   * The device's name, unique in this JVM ({@code iwarp4j-1}, {@code iwarp4j-2}, ...): it names
   * the device's threads, its MBeans and its pcap files.
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * Copies the device's counters into {@code into}, replacing what it held: the sum over its
   * open queue pairs and every queue pair closed so far (see {@link CountersSnapshot}). Callable
   * from any thread; allocates nothing (it takes a short lock against queue pairs being created
   * or closed).
   *
   * @param into the caller's snapshot, reused across calls
   * @return {@code into}
   */
  public CountersSnapshot counters(CountersSnapshot into) {
    deviceCounters.sumInto(into.values());
    into.wakeUps(wakeUps.loopWakeUps(), wakeUps.pollerWakeUps());
    return into;
  }

  /**
   * Whether {@link #close()} was called.
   *
   * @return true once closing
   */
  public boolean isClosed() {
    return closed.get();
  }

  // ---- resources ----

  /**
   * Allocates a protection domain, like {@code ibv_alloc_pd}.
   *
   * @return the domain
   * @throws IllegalStateException when the device is closed
   */
  public ProtectionDomain allocateProtectionDomain() {
    checkOpen();
    ProtectionDomain pd = new ProtectionDomain(this, stags.newProtectionDomain());
    domains.add(pd);
    return pd;
  }

  /**
   * Creates a completion queue, like {@code ibv_create_cq}.
   *
   * @param capacity the most completions it holds, 1 to {@link DeviceConfig#maxCqe()}
   * @return the queue
   * @throws IllegalArgumentException when the capacity is out of range
   * @throws IllegalStateException when the device is closed
   */
  public CompletionQueue createCompletionQueue(int capacity) {
    return createCompletionQueue(capacity, (CompletionListener) null);
  }

  /**
   * Creates a completion queue with a listener for notifications and overrun.
   *
   * @param capacity the most completions it holds, 1 to {@link DeviceConfig#maxCqe()}
   * @param listener the listener, or null
   * @return the queue
   * @throws IllegalArgumentException when the capacity is out of range
   * @throws IllegalStateException when the device is closed
   */
  public CompletionQueue createCompletionQueue(int capacity, CompletionListener listener) {
    checkOpen();
    checkCapacity(capacity);
    return own(new CompletionQueue(capacity, listener));
  }

  /**
   * Creates a completion queue whose notifications go to a completion channel, like
   * {@code ibv_create_cq} with {@code channel}: after {@link CompletionQueue#requestNotify}, the
   * next (solicited) completion queues one event on the channel for an application thread to
   * take with {@link CompletionChannel#awaitEvent}. Any number of queues may share a channel.
   *
   * @param capacity the most completions it holds, 1 to {@link DeviceConfig#maxCqe()}
   * @param channel a channel of this device, or one made directly
   * @return the queue
   * @throws IllegalArgumentException when the capacity is out of range or the channel belongs to
   *     another device
   * @throws IllegalStateException when the device or the channel is closed
   */
  public CompletionQueue createCompletionQueue(int capacity, CompletionChannel channel) {
    checkOpen();
    Objects.requireNonNull(channel, "channel");
    checkCapacity(capacity);
    RdmaDevice owner = channel.device();
    if (owner != null && owner != this) {
      throw new IllegalArgumentException("completion channel " + channel.number()
          + " belongs to device " + owner.name() + ", not " + name);
    }
    return own(new CompletionQueue(capacity, channel));
  }

  /**
   * Creates a completion channel, like {@code ibv_create_comp_channel}: application threads take
   * the notifications of the completion queues created with it
   * ({@link #createCompletionQueue(int, CompletionChannel)}) from it. Closed with the device.
   *
   * @return the channel
   * @throws IllegalStateException when the device is closed
   */
  public CompletionChannel createCompletionChannel() {
    checkOpen();
    CompletionChannel channel = new CompletionChannel();
    channel.ownedBy(this);
    completionChannels.add(channel);
    return channel;
  }

  private void checkCapacity(int capacity) {
    if (capacity < 1 || capacity > config.maxCqe()) {
      throw new IllegalArgumentException("completion queue capacity " + capacity
          + " is outside 1.." + config.maxCqe() + " (DeviceConfig.maxCqe)");
    }
  }

  private CompletionQueue own(CompletionQueue cq) {
    cq.ownedBy(this);
    completionQueues.add(cq);
    return cq;
  }

  /**
   * Creates a queue pair, like {@code rdma_create_qp}: it is returned in {@link QpState#INIT},
   * ready for receives to be posted and for {@link #connect} or {@link ConnectRequest#accept}.
   *
   * @param pd its protection domain, of this device
   * @param qpConfig completion queues, depths, SGEs, IRD/ORD
   * @return the queue pair
   * @throws IllegalArgumentException when a limit exceeds the device's or the domain belongs to
   *     another device
   * @throws IllegalStateException when the device is closed, the domain closed, or
   *     {@link DeviceConfig#maxQueuePairs()} queue pairs are open
   */
  public QueuePair createQueuePair(ProtectionDomain pd, QueuePairConfig qpConfig) {
    checkOpen();
    Objects.requireNonNull(pd, "pd");
    Objects.requireNonNull(qpConfig, "qpConfig");
    if (pd.device() != this) {
      throw new IllegalArgumentException(pd + " belongs to another device");
    }
    if (pd.isClosed()) {
      throw new IllegalStateException(pd + " is closed");
    }
    SharedReceiveQueue srq = qpConfig.sharedReceiveQueue();
    QueuePairCapabilities caps = QueuePairLimits.resolve(config, pd, qpConfig);
    synchronized (queuePairs) {
      if (queuePairs.size() >= config.maxQueuePairs()) {
        throw new IllegalStateException(queuePairs.size() + " queue pairs are open, the device's"
            + " limit (DeviceConfig.maxQueuePairs); close some first");
      }
      QueuePair qp = new QueuePair(this, nextQpNumber.getAndIncrement(), pd, qpConfig.sendCq(),
          qpConfig.recvCq(), caps, qpConfig.signalAllSends(), srq);
      if (srq != null) {
        try {
          srq.attach(qp);
        } catch (RuntimeException e) {
          qp.close();
          throw e;
        }
      }
      queuePairs.add(qp);
      deviceCounters.add(qp.rdmapCounters());
      if (config.jmx()) {
        try {
          qp.countersMBean = CountersMBean.register(
              CountersMBean.queuePairName(name, qp.number()), qp::counters);
        } catch (JMException e) {
          log.warn("device {}: no counters MBean for queue pair {}: {}", name, qp.number(),
              e.toString());
        }
      }
      return qp;
    }
  }

  /**
   * The receives a queue pair attached to a shared receive queue holds at once, taken and not
   * completed: the one a message is placed into (taken when it starts, completed on its last
   * segment), and one to spare.
   */
  static final int SHARED_RECEIVES_HELD = 2;

  // ---- connection manager ----

  /**
   * Listens for connections, like {@code rdma_listen}: each well-formed MPA Request goes to
   * {@code handler}. Uses the device's MPA settings (its RTR types are the ones supported in
   * peer-to-peer mode, its request timeout bounds the decision).
   *
   * @param address where to listen; port 0 picks a free port ({@link RdmaListener#localAddress})
   * @param handler decides on each request
   * @return the listener
   * @throws IOException when the address cannot be bound
   * @throws IllegalStateException when the device is closed
   */
  public RdmaListener listen(InetSocketAddress address, ConnectRequestHandler handler)
      throws IOException {
    return listen(address, handler, ListenParams.defaults());
  }

  /**
   * Listens with TLS or TCP settings of its own: as {@link #listen(InetSocketAddress,
   * ConnectRequestHandler)}, and with {@link ListenParams#tls()} every accepted connection must
   * complete a TLS 1.3 handshake before its MPA Request is read (an iwarp4j extension, see
   * {@link TlsSettings}); a client that does not start with TLS gets a TLS alert and is closed,
   * and a failed handshake closes the connection, both logged (INFO) and counted
   * ({@link #tlsCounters()}).
   *
   * @param address where to listen; port 0 picks a free port ({@link RdmaListener#localAddress})
   * @param handler decides on each request
   * @param params TLS, TCP keepalive and user timeout overrides
   * @return the listener
   * @throws IOException when the address cannot be bound
   * @throws IllegalStateException when the device is closed
   */
  public RdmaListener listen(InetSocketAddress address, ConnectRequestHandler handler,
      ListenParams params) throws IOException {
    checkOpen();
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(params, "params");
    RdmaListener listener = new RdmaListener(this, links.bind(this, address, handler, params));
    listeners.add(listener);
    log.debug("{} listening on {}", name, listener.localAddress());
    return listener;
  }

  /**
   * Connects with the queue pair's IRD/ORD, no private data and the device's MPA settings.
   *
   * @param qp a new queue pair of this device, in INIT
   * @param remote the peer's listening address
   * @return see {@link #connect(QueuePair, InetSocketAddress, ConnectParams)}
   */
  public CompletableFuture<RdmaConnection> connect(QueuePair qp, InetSocketAddress remote) {
    return connect(qp, remote, ConnectParams.defaults());
  }

  /**
   * Connects, like {@code rdma_connect}: TCP connect, the MPA Request/Reply exchange (with the
   * RTR in peer-to-peer mode), then the RDMAP stream is set up on the connection's event loop
   * and the queue pair moves INIT, RTR, RTS. Receives may have been posted already.
   *
   * @param qp a new queue pair of this device, in INIT
   * @param remote the peer's listening address
   * @param params private data, IRD/ORD, MPA overrides, timeouts, event listener
   * @return completes with the connection when the queue pair is RTS (and ESTABLISHED is
   *     reported); fails with {@link RdmaRejectedException}, {@link RdmaUnreachableException},
   *     {@link RdmaTimeoutException} or {@link RdmaConnectException} (CONNECT_ERROR), after
   *     which the queue pair is in ERROR with its posted receives flushed
   * @throws IllegalArgumentException when the queue pair belongs to another device or the MPA
   *     overrides are inconsistent (e.g. peer-to-peer with revision 1, private data too long)
   * @throws IllegalStateException when the device is closed, the queue pair is not a new one
   *     in INIT, or {@link DeviceConfig#maxConnections()} connections are open
   */
  public CompletableFuture<RdmaConnection> connect(QueuePair qp, InetSocketAddress remote,
      ConnectParams params) {
    checkOpen();
    Objects.requireNonNull(qp, "qp");
    Objects.requireNonNull(remote, "remote");
    Objects.requireNonNull(params, "params");
    checkOwns(qp);
    return links.connect(this, qp, remote, params);
  }

  // ---- shutdown ----

  /**
   * Shuts the device down: stops listening, closes every queue pair (flushing its work requests,
   * closing its connection), every remaining connection, every completion queue (unacknowledged
   * channel events or not) and completion channel (waking its waiters), memory region and
   * protection domain, then stops the event loop threads. The queue pairs close all at once,
   * each on its event loop, and they and the connections share one bound (10 s); no connection
   * is cut in the middle of an FPDU: its FIN follows the last octet written to it, or, when
   * those octets cannot leave within 2 s (a peer that does not read), it is reset (a TCP RST,
   * an abortive close). Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    log.debug("closing device {}", name);
    for (RdmaListener l : new ArrayList<>(listeners)) {
      l.close();
    }
    // Every queue pair at once, each on its own event loop, under one bound for them all.
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_BOUND_MILLIS);
    List<QueuePair> qps = new ArrayList<>(queuePairs);
    List<CompletableFuture<Void>> qpCloses = new ArrayList<>();
    for (QueuePair qp : qps) {
      qpCloses.add(qp.closeAsync());
    }
    try {
      CompletableFuture.allOf(qpCloses.toArray(new CompletableFuture<?>[0]))
          .get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.warn("device {}: queue pairs did not close on their event loops within {} ms: {}",
          name, CLOSE_BOUND_MILLIS, e.toString());
    }
    for (QueuePair qp : qps) {
      qp.releaseAfterClose();
    }
    // No FPDU is cut: each connection's FIN follows its last written octet, or, past the
    // bound, the connection is reset (RFC 5044 §7.2; FpduBoundaryClose).
    List<ChannelFuture> closing = new ArrayList<>();
    for (Channel ch : links.channels()) {
      closing.add(FpduBoundaryClose.close(ch,
          Math.max(1, Math.min(CHANNEL_CLOSE_BOUND_MILLIS, remainingMillis(deadline)))));
    }
    for (ChannelFuture f : closing) {
      // A reset closes at the bound; the margin is for the event loop to get to it.
      f.awaitUninterruptibly(remainingMillis(deadline) + 1_000);
    }
    for (CompletionQueue cq : new ArrayList<>(completionQueues)) {
      cq.closeForced(); // unacknowledged channel events or not
    }
    completionQueues.clear();
    for (CompletionChannel channel : new ArrayList<>(completionChannels)) {
      channel.closeForced(); // wakes its waiters
    }
    completionChannels.clear();
    for (ProtectionDomain pd : new ArrayList<>(domains)) {
      try {
        pd.closeAll();
      } catch (RuntimeException e) {
        log.warn("device {}: closing {} failed", name, pd, e);
      }
    }
    domains.clear();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10_000);
    CountersMBean.unregister(countersMBean);
    log.debug("closed device {}", name);
  }

  private static long remainingMillis(long deadlineNanos) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
  }

  // ---- package ----

  WakeUpCounters wakeUps() {
    return wakeUps;
  }

  EventLoop nextLoop() {
    return group.next();
  }

  /** The shared queue-pair loop of {@code loop}, one of this device's event loops. */
  QpLoop qpLoop(EventExecutor loop) {
    return qpLoops.of(loop);
  }

  StagTable stagTable() {
    return stags;
  }

  void checkOwns(QueuePair qp) {
    if (!queuePairs.contains(qp)) {
      throw new IllegalArgumentException("queue pair " + qp.number()
          + " does not belong to this device (or is closed)");
    }
  }

  void forget(QueuePair qp) {
    queuePairs.remove(qp);
    CountersMBean.unregister(qp.countersMBean);
    deviceCounters.retire(qp.rdmapCounters());
  }

  void forget(CompletionQueue cq) {
    completionQueues.remove(cq);
  }

  void forget(CompletionChannel channel) {
    completionChannels.remove(channel);
  }

  void forget(ProtectionDomain pd) {
    domains.remove(pd);
  }

  void forget(RdmaListener listener) {
    listeners.remove(listener);
  }

  /** The connection left the MPA startup: its MPA Request arrived. Event loop. */
  void startupDone(Channel ch) {
    links.startupDone(ch);
  }

  /** An accept's TCP overrides, on its connected socket. Event loop. */
  void applyTcpLivenessToAccepted(Channel ch, TcpLiveness tcp) {
    links.applyTcpLivenessToAccepted(ch, tcp);
  }

  /**
   * What the listeners did with connections they could not all admit: see
   * {@link AdmissionCounters}. Callable from any thread.
   *
   * @return the counts since the device opened
   */
  public AdmissionCounters admissionCounters() {
    return new AdmissionCounters(deviceCounters.startupRefusedPerSource.sum(),
        deviceCounters.startupRefusedDeviceFull.sum(), deviceCounters.startupEvicted.sum());
  }

  /**
   * What the TLS listeners refused: see {@link TlsCounters}. Callable from any thread.
   *
   * @return the counts since the device opened
   */
  public TlsCounters tlsCounters() {
    return new TlsCounters(deviceCounters.tlsPlaintextRefused.sum(),
        deviceCounters.tlsHandshakesFailed.sum());
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("device " + name + " is closed");
    }
  }

  @Override
  public String toString() {
    return "RdmaDevice{" + name + ", " + transport + ", queuePairs=" + queuePairs.size()
        + ", regions=" + stags.registeredCount() + (closed.get() ? ", closed" : "") + '}';
  }
}
