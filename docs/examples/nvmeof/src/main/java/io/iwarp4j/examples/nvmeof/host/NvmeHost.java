package io.iwarp4j.examples.nvmeof.host;

import io.iwarp4j.examples.nvmeof.wire.ConnectData;
import io.iwarp4j.examples.nvmeof.wire.IdentifyController;
import io.iwarp4j.examples.nvmeof.wire.IdentifyNamespace;
import io.iwarp4j.examples.nvmeof.wire.NvmeStatus;
import io.iwarp4j.examples.nvmeof.wire.Opcodes;
import io.iwarp4j.examples.nvmeof.wire.Properties;
import io.iwarp4j.examples.nvmeof.wire.Sqe;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.RdmaDevice;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An NVMe over Fabrics host (initiator) on iWARP: one association with a controller of an
 * NVMe/RDMA target. {@link #connect} connects the admin queue (Fabrics Connect with CNTLID
 * 0xFFFF), reads CAP, enables the controller (CC.EN) and waits for CSTS.RDY, identifies the
 * controller and namespace 1, connects the I/O queues (Fabrics Connect with the CNTLID), and
 * sends Keep Alive every KATO / 2. {@link #close} shuts the controller down (CC.SHN) and
 * disconnects every queue, waiting for all its work requests to complete.
 */
public final class NvmeHost implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(NvmeHost.class.getName());
  /** Admin queue entries, as Linux (NVME_AQ_DEPTH). */
  public static final int ADMIN_ENTRIES = 32;
  /** The most one I/O command of this host transfers (and the size of each slot's buffer). */
  public static final int MAX_IO_BYTES = 128 * 1024;

  private final RdmaDevice device;
  private final boolean ownsDevice;
  private final HostOptions options;
  private final HostQueue admin;
  private final List<HostQueue> ioQueues = new ArrayList<>();
  private final ScheduledExecutorService keepAlive;
  private final AtomicLong keepAlivesCompleted = new AtomicLong();
  private final AtomicLong keepAlivesFailed = new AtomicLong();
  private int cntlid;
  private IdentifyController controller;
  private IdentifyNamespace namespace;
  private int maxIoBytes;
  private volatile boolean shutdownCompleted;

  /**
   * Connects to a target on a device of its own.
   *
   * @param deviceConfig the device's configuration
   * @param target the target's address
   * @param options how to connect
   * @return the connected host
   * @throws NvmeofException when a step fails: the message names it
   */
  public static NvmeHost connect(DeviceConfig deviceConfig, InetSocketAddress target,
      HostOptions options) {
    RdmaDevice device = RdmaDevice.open(deviceConfig);
    try {
      return new NvmeHost(device, true, target, options);
    } catch (RuntimeException e) {
      device.close();
      throw e;
    }
  }

  private NvmeHost(RdmaDevice device, boolean ownsDevice, InetSocketAddress target,
      HostOptions options) {
    this.device = device;
    this.ownsDevice = ownsDevice;
    this.options = options;
    ProtectionDomain pd = device.allocateProtectionDomain();
    admin = new HostQueue(device, pd, 0, ADMIN_ENTRIES, IdentifyController.SIZE, false);
    admin.connect(device, target, options.firstFpduDelayMillis());
    cntlid = fabricsConnect(admin, ConnectData.ANY_CONTROLLER, options.katoMillis());
    enable();
    controller = identifyController();
    namespace = identifyNamespace(1);
    long mdts = controller.maxTransferBytes();
    maxIoBytes = (int) (mdts == 0 ? MAX_IO_BYTES : Math.min(mdts, MAX_IO_BYTES));
    if ((controller.sgls() & IdentifyController.SGLS_KEYED) == 0) {
      throw new NvmeofException("the controller does not support keyed SGL data blocks");
    }
    for (int q = 1; q <= options.ioQueues(); q++) {
      HostQueue io = new HostQueue(device, pd, q, options.queueEntries(), maxIoBytes,
          options.perIoRegistration());
      ioQueues.add(io);
      io.connect(device, target, options.firstFpduDelayMillis());
      if (options.inCapsuleWrites()
          && (controller.sgls() & IdentifyController.SGLS_OFFSET) != 0) {
        io.inCapsuleBytes(controller.inCapsuleDataSize());
      }
      fabricsConnect(io, cntlid, 0);
    }
    keepAlive = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "nvmeof-host-keepalive");
      t.setDaemon(true);
      return t;
    });
    if (options.katoMillis() > 0 && options.sendKeepAlive()) {
      long period = Math.max(1, options.katoMillis() / 2);
      keepAlive.scheduleAtFixedRate(this::sendKeepAlive, period, period, TimeUnit.MILLISECONDS);
    }
  }

  private int fabricsConnect(HostQueue q, int cntlidWanted, int kato) {
    int slot = q.acquire();
    Sqe sqe = q.command(slot).opcode(Opcodes.FABRICS).fctype(Opcodes.FCTYPE_CONNECT)
        .connect(q.qid(), q.entries() - 1, kato);
    ConnectData.write(q.data(slot), 0, options.hostId(), cntlidWanted, options.subNqn(),
        options.hostNqn());
    int carried = q.describeData(slot, ConnectData.SIZE, q.qid() != 0);
    sqe.flags(Sqe.FLAG_SGL);
    long result = q.executeOk("Fabrics Connect of queue " + q.qid(), slot, carried, null);
    return (int) (result & 0xFFFF);
  }

  /**
   * Reads a controller property.
   *
   * @param offset {@link Properties#CAP}, {@code VS}, {@code CC} or {@code CSTS}
   * @param wide whether it is 8 octets (CAP)
   * @return its value
   */
  public long propertyGet(int offset, boolean wide) {
    int slot = admin.acquire();
    admin.command(slot).opcode(Opcodes.FABRICS).fctype(Opcodes.FCTYPE_PROPERTY_GET)
        .property(wide, offset, 0);
    admin.describeData(slot, 0, false);
    return admin.executeOk("Property Get " + offset, slot, 0, null);
  }

  /** Writes a 4-octet controller property. */
  public void propertySet(int offset, int value) {
    int slot = admin.acquire();
    admin.command(slot).opcode(Opcodes.FABRICS).fctype(Opcodes.FCTYPE_PROPERTY_SET)
        .property(false, offset, value & 0xFFFF_FFFFL);
    admin.describeData(slot, 0, false);
    admin.executeOk("Property Set " + offset, slot, 0, null);
  }

  private void enable() {
    long cap = propertyGet(Properties.CAP, true);
    propertySet(Properties.CC, Properties.CC_ENTRY_SIZES | Properties.CC_ENABLE);
    long timeout = Math.max(500, Properties.readyTimeoutMillis(cap));
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeout);
    while ((propertyGet(Properties.CSTS, false) & Properties.CSTS_READY) == 0) {
      if (System.nanoTime() > deadline) {
        throw new NvmeofException("the controller was not ready within CAP.TO, " + timeout
            + " ms");
      }
      sleepMillis(10);
    }
  }

  private IdentifyController identifyController() {
    IdentifyController[] out = new IdentifyController[1];
    identify(Opcodes.CNS_CONTROLLER, 0, b -> out[0] = IdentifyController.read(b, 0));
    return out[0];
  }

  private IdentifyNamespace identifyNamespace(int nsid) {
    IdentifyNamespace[] out = new IdentifyNamespace[1];
    identify(Opcodes.CNS_NAMESPACE, nsid, b -> out[0] = IdentifyNamespace.read(b, 0));
    return out[0];
  }

  private void identify(int cns, int nsid, java.util.function.Consumer<java.nio.ByteBuffer> read) {
    int slot = admin.acquire();
    admin.command(slot).opcode(Opcodes.ADMIN_IDENTIFY).nsid(nsid).cdw(10, cns);
    admin.describeData(slot, IdentifyController.SIZE, false);
    admin.executeOk("Identify CNS " + cns, slot, 0, read);
  }

  private void sendKeepAlive() {
    if (!admin.isConnected()) {
      return;
    }
    try {
      int slot = admin.acquire();
      admin.command(slot).opcode(Opcodes.ADMIN_KEEP_ALIVE);
      admin.describeData(slot, 0, false);
      admin.submit(slot, 0, (status, result, data) -> {
        if (status == NvmeStatus.SUCCESS) {
          keepAlivesCompleted.incrementAndGet();
        } else {
          keepAlivesFailed.incrementAndGet();
        }
      });
    } catch (RuntimeException e) {
      keepAlivesFailed.incrementAndGet();
      LOG.log(System.Logger.Level.DEBUG, "nvmeof host: Keep Alive: {0}", e.toString());
    }
  }

  public int cntlid() {
    return cntlid;
  }

  public IdentifyController controller() {
    return controller;
  }

  public IdentifyNamespace namespace() {
    return namespace;
  }

  /** The most one I/O command transfers here: MDTS, at most {@link #MAX_IO_BYTES}. */
  public int maxIoBytes() {
    return maxIoBytes;
  }

  public HostQueue ioQueue(int index) {
    return ioQueues.get(index);
  }

  public int ioQueueCount() {
    return ioQueues.size();
  }

  HostQueue adminQueue() {
    return admin;
  }

  public long keepAlivesCompleted() {
    return keepAlivesCompleted.get();
  }

  public long keepAlivesFailed() {
    return keepAlivesFailed.get();
  }

  /** Whether every queue is still connected. */
  public boolean isConnected() {
    return admin.isConnected() && ioQueues.stream().allMatch(HostQueue::isConnected);
  }

  /** Reads blocks of namespace 1 over I/O queue 0, waiting. */
  public void read(long slba, int blocks, byte[] dst, int off) {
    ioQueues.get(0).read(1, slba, blocks, namespace.blockSize(), dst, off);
  }

  /** Writes blocks of namespace 1 over I/O queue 0, waiting. */
  public void write(long slba, int blocks, byte[] src, int off) {
    ioQueues.get(0).write(1, slba, blocks, namespace.blockSize(), src, off,
        options.inCapsuleWrites());
  }

  /**
   * Work requests of all queues posted and not yet completed: 0 after {@link #close()} means
   * every one completed, successfully or flushed.
   */
  public long outstandingWorkRequests() {
    long n = admin.outstandingWorkRequests();
    for (HostQueue q : ioQueues) {
      n += q.outstandingWorkRequests();
    }
    return n;
  }

  /**
   * Whether {@link #close()} saw the controller report its shutdown complete (CSTS.SHST = 10b)
   * before it disconnected the queues: an orderly end the target took part in.
   */
  public boolean shutdownCompleted() {
    return shutdownCompleted;
  }

  /** Shuts the controller down (CC.SHN, if still connected) and disconnects every queue. */
  @Override
  public void close() {
    if (keepAlive != null) {
      keepAlive.shutdownNow();
    }
    try {
      if (admin.isConnected()) {
        try {
          propertySet(Properties.CC, Properties.CC_ENTRY_SIZES | Properties.CC_SHN_NORMAL);
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
          while (!(shutdownCompleted = (propertyGet(Properties.CSTS, false)
              & Properties.CSTS_SHST_MASK) == Properties.CSTS_SHST_COMPLETE)
              && System.nanoTime() < deadline) {
            sleepMillis(10);
          }
        } catch (NvmeofException e) {
          LOG.log(System.Logger.Level.DEBUG, "nvmeof host: shutdown: {0}", e.getMessage());
        }
      }
      for (HostQueue q : ioQueues) {
        q.close();
      }
      admin.close();
    } finally {
      if (ownsDevice) {
        device.close();
      }
    }
  }

  private static void sleepMillis(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NvmeofException("interrupted", e);
    }
  }
}
