package io.iwarp4j.examples.nvmeof.server;

import io.iwarp4j.examples.nvmeof.wire.CmPrivateData;
import io.iwarp4j.examples.nvmeof.wire.IdentifyController;
import io.iwarp4j.examples.nvmeof.wire.IdentifyNamespace;
import io.iwarp4j.examples.nvmeof.wire.Properties;
import io.iwarp4j.examples.nvmeof.wire.Sqe;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An NVMe over Fabrics target on iWARP (the NVMe/RDMA transport) exporting one in-memory
 * namespace: it accepts admin and I/O queues whose connection private data is valid (rejecting
 * the others with the NVMe/RDMA reject status), makes a controller per admin queue Connect
 * (dynamic controller model), serves its commands ({@link TargetQueue}) and tears an association
 * down when its host is silent for longer than the keep-alive timeout.
 */
public final class NvmeTarget implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(NvmeTarget.class.getName());
  /** How often keep-alive deadlines are checked; KATO granularity is 100 ms (KAS = 1). */
  private static final long KEEP_ALIVE_CHECK_MILLIS = 100;

  private final TargetConfig config;
  private final RdmaDevice device;
  private final ProtectionDomain pd;
  private final Namespace namespace;
  private final RdmaListener listener;
  private final Map<Integer, Controller> controllers = new ConcurrentHashMap<>();
  private final AtomicInteger nextCntlid = new AtomicInteger(1);
  private final AtomicInteger keepAliveExpirations = new AtomicInteger();
  private final AtomicInteger rejectedConnections = new AtomicInteger();
  private final ScheduledExecutorService timer;
  private final UUID namespaceUuid;

  /**
   * Opens a device, makes the namespace and listens.
   *
   * @param deviceConfig the device's configuration
   * @param address where to listen; port 0 picks a free one
   * @param config what to export
   * @return the running target
   * @throws IOException when the address cannot be bound
   */
  public static NvmeTarget start(DeviceConfig deviceConfig, InetSocketAddress address,
      TargetConfig config) throws IOException {
    RdmaDevice device = RdmaDevice.open(deviceConfig);
    try {
      return new NvmeTarget(device, address, config);
    } catch (IOException | RuntimeException e) {
      device.close();
      throw e;
    }
  }

  private NvmeTarget(RdmaDevice device, InetSocketAddress address, TargetConfig config)
      throws IOException {
    this.config = config;
    this.device = device;
    this.namespaceUuid = UUID.nameUUIDFromBytes(config.subNqn().getBytes());
    pd = device.allocateProtectionDomain();
    namespace = new Namespace(pd, config.namespaceBytes(), config.blockSize());
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "nvmeof-target-keepalive");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(this::checkKeepAlives, KEEP_ALIVE_CHECK_MILLIS,
        KEEP_ALIVE_CHECK_MILLIS, TimeUnit.MILLISECONDS);
    listener = device.listen(address, this::onConnectRequest);
  }

  /** The address the target listens on. */
  public InetSocketAddress address() {
    return listener.localAddress();
  }

  public TargetConfig config() {
    return config;
  }

  /** Controllers (associations) alive now. */
  public int controllerCount() {
    return controllers.size();
  }

  /** Associations torn down because their host was silent past KATO. */
  public int keepAliveExpirations() {
    return keepAliveExpirations.get();
  }

  /** Connection requests rejected for their NVMe/RDMA private data or for lack of resources. */
  public int rejectedConnections() {
    return rejectedConnections.get();
  }

  // Runs on an event loop: decides at once.
  private void onConnectRequest(ConnectRequest request) {
    int status = 0;
    CmPrivateData.Request req = null;
    try {
      req = CmPrivateData.parseRequest(request.privateData());
    } catch (IllegalArgumentException e) {
      status = CmPrivateData.REJECT_INVALID_LENGTH;
    }
    if (req != null) {
      int maxEntries = req.qid() == 0 ? TargetConfig.ADMIN_QUEUE_ENTRIES : config.maxQueueEntries();
      if (req.recfmt() != CmPrivateData.RECFMT_1_0) {
        status = CmPrivateData.REJECT_INVALID_RECFMT;
      } else if (req.qid() > config.maxIoQueues()) {
        status = CmPrivateData.REJECT_INVALID_QID;
      } else if (req.sendQueueEntries() < 2 || req.sendQueueEntries() > maxEntries) {
        status = CmPrivateData.REJECT_INVALID_HSQSIZE;
      } else if (req.hrqsize() < 1) {
        status = CmPrivateData.REJECT_INVALID_HRQSIZE;
      }
    }
    if (status != 0) {
      reject(request, status, req);
      return;
    }
    TargetQueue queue;
    try {
      queue = new TargetQueue(this, req.qid(), req.sendQueueEntries(),
          req.qid() == 0 ? 0 : config.inCapsuleDataSize());
    } catch (IllegalStateException | IllegalArgumentException noResources) {
      LOG.log(System.Logger.Level.WARNING, "nvmeof target: no resources for a queue: {0}",
          noResources.getMessage());
      reject(request, CmPrivateData.REJECT_NO_RESOURCES, req);
      return;
    }
    queue.accept(request);
  }

  private void reject(ConnectRequest request, int status, CmPrivateData.Request req) {
    rejectedConnections.incrementAndGet();
    LOG.log(System.Logger.Level.INFO, "nvmeof target: rejecting {0} ({1}) with status {2}",
        request.remoteAddress(), req, status);
    request.reject(CmPrivateData.reject(status));
  }

  RdmaDevice device() {
    return device;
  }

  ProtectionDomain pd() {
    return pd;
  }

  Namespace namespace() {
    return namespace;
  }

  Controller newController(UUID hostId, String hostNqn, int katoMillis) {
    int id = nextCntlid.getAndUpdate(n -> n >= 0xFFEF ? 1 : n + 1);
    Controller c = new Controller(id, hostId, hostNqn, katoMillis);
    controllers.put(id, c);
    return c;
  }

  Controller controller(int cntlid) {
    return controllers.get(cntlid);
  }

  /** Ends the association: every queue of the controller is disconnected. */
  void tearDown(Controller c) {
    if (c.tearDown()) {
      controllers.remove(c.cntlid, c);
      for (TargetQueue q : c.queues()) {
        q.disconnect();
      }
    }
  }

  private void checkKeepAlives() {
    long now = System.nanoTime();
    for (Controller c : controllers.values()) {
      if (c.keepAliveExpired(now)) {
        keepAliveExpirations.incrementAndGet();
        LOG.log(System.Logger.Level.WARNING, "nvmeof target: controller {0} of {1}: no command"
            + " within KATO {2} ms, tearing the association down", c.cntlid, c.hostNqn,
            c.katoMillis());
        tearDown(c);
      }
    }
  }

  long capability() {
    return Properties.capability(config.maxQueueEntries(), 15);
  }

  IdentifyController identifyController(int cntlid) {
    int ioccsz = (Sqe.SIZE + config.inCapsuleDataSize()) / 16;
    int sgls = IdentifyController.SGLS_SUPPORTED | IdentifyController.SGLS_KEYED
        | (config.inCapsuleDataSize() > 0 ? IdentifyController.SGLS_OFFSET : 0);
    return new IdentifyController(0, Integer.toHexString(namespaceUuid.hashCode()),
        "iwarp4j NVMe/RDMA in-memory target", "0.1", config.mdts(), cntlid,
        Properties.VERSION_1_3, 1, config.maxQueueEntries(), 1, sgls, config.subNqn(), ioccsz,
        1, 0, 1);
  }

  IdentifyNamespace identifyNamespace() {
    return new IdentifyNamespace(namespace.blocks(), namespace.blocks(), namespace.blocks(), 0,
        namespace.blockShift());
  }

  UUID namespaceUuid() {
    return namespaceUuid;
  }

  /** Stops listening, disconnects every host and frees the namespace. */
  @Override
  public void close() {
    timer.shutdownNow();
    for (Controller c : controllers.values()) {
      tearDown(c);
    }
    // The device closes what it owns: listener, queue pairs, completion queues, regions.
    device.close();
  }
}
