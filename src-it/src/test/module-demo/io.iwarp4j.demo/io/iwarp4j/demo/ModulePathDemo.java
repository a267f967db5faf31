package io.iwarp4j.demo;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Two verbs devices over 127.0.0.1: the client RDMA Writes 64 KiB into the server's region,
 * RDMA Reads it back into a second buffer and compares every octet; then the demo reports
 * whether the stack's internals are reachable from here (they must not be). Prints
 * "module-path demo OK" and exits 0 on success, else prints the failure and exits 1.
 */
public final class ModulePathDemo {
  private static final int LENGTH = 64 * 1024;

  private ModulePathDemo() {}

  public static void main(String[] args) throws Exception {
    try {
      run();
      encapsulation();
      System.out.println("module-path demo OK");
    } catch (Throwable t) {
      t.printStackTrace();
      System.exit(1);
    }
  }

  private static void run() throws Exception {
    Module verbs = RdmaDevice.class.getModule();
    System.out.println("verbs API module: " + verbs.getName() + ", demo module: "
        + ModulePathDemo.class.getModule().getName());
    try (RdmaDevice server = RdmaDevice.open(); RdmaDevice client = RdmaDevice.open()) {
      System.out.println("transport: " + server.transport());
      ProtectionDomain spd = server.allocateProtectionDomain();
      CompletionQueue scq = server.createCompletionQueue(16);
      QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq).build());
      MemoryRegion target = spd.allocate(LENGTH,
          AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
      CompletableFuture<RdmaConnection> accepted = new CompletableFuture<>();
      RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
          request -> request.accept(sqp).whenComplete((c, e) -> {
            if (e != null) {
              accepted.completeExceptionally(e);
            } else {
              accepted.complete(c);
            }
          }));

      ProtectionDomain cpd = client.allocateProtectionDomain();
      CompletionQueue ccq = client.createCompletionQueue(16);
      QueuePair cqp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq).build());
      MemoryRegion local = cpd.allocate(2 * LENGTH, AccessFlags.LOCAL_WRITE);
      for (int i = 0; i < LENGTH; i++) {
        local.buffer().setByte(i, i * 31 + 7);
      }
      client.connect(cqp, listener.localAddress(),
          ConnectParams.builder().peerToPeer(true).build()).get(30, TimeUnit.SECONDS);
      accepted.get(30, TimeUnit.SECONDS);

      cqp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.RDMA_WRITE)
          .flags(SendFlags.SIGNALED).remote(target.stag(), target.address())
          .addSge(local, 0, LENGTH));
      cqp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.RDMA_READ)
          .flags(SendFlags.SIGNALED).remote(target.stag(), target.address())
          .addSge(local, LENGTH, LENGTH));
      WorkCompletion[] wc = {new WorkCompletion()};
      for (long expected = 1; expected <= 2; expected++) {
        if (ccq.await(wc, 30, TimeUnit.SECONDS) != 1) {
          throw new IllegalStateException("no completion for work request " + expected);
        }
        if (!wc[0].isSuccess() || wc[0].wrId() != expected) {
          throw new IllegalStateException("work request " + expected + " failed: " + wc[0]);
        }
      }
      for (int i = 0; i < LENGTH; i++) {
        if (local.buffer().getByte(LENGTH + i) != target.buffer().getByte(i)
            || target.buffer().getByte(i) != (byte) (i * 31 + 7)) {
          throw new IllegalStateException("octet " + i + " differs after the Write and Read");
        }
      }
      System.out.println("RDMA Write and Read of " + LENGTH + " octets verified");
    }
  }

  /** The stack's internals must be closed to an application module, also by reflection. */
  private static void encapsulation() throws Exception {
    Module verbs = RdmaDevice.class.getModule();
    Module self = ModulePathDemo.class.getModule();
    check(verbs.isExported("io.iwarp4j.verbs", self), "io.iwarp4j.verbs is exported");
    check(!verbs.isExported("io.iwarp4j.verbs.internal", self),
        "io.iwarp4j.verbs.internal is not exported");
    Module rdmap = verbs.getLayer().findModule("io.iwarp4j.rdmap").orElseThrow();
    check(!rdmap.isExported("io.iwarp4j.rdmap", self), "io.iwarp4j.rdmap is not exported to us");
    check(rdmap.isExported("io.iwarp4j.rdmap", verbs), "io.iwarp4j.rdmap is exported to verbs");
    // The protocol layers: not read by an application module, and exported to no one but the
    // layers above them.
    for (String name : new String[] {"io.iwarp4j.mpa", "io.iwarp4j.ddp", "io.iwarp4j.rdmap"}) {
      Module layer = verbs.getLayer().findModule(name).orElseThrow();
      check(!self.canRead(layer), name + " is not read by us");
      check(verbs.canRead(layer), name + " is read by verbs");
      for (String pkg : layer.getPackages()) {
        if (layer.isExported(pkg, self)) {
          throw new IllegalStateException("expected: " + pkg + " not exported to us");
        }
      }
      System.out.println("checked: no package of " + name + " is exported to us");
    }
    Class<?> internal = Class.forName("io.iwarp4j.verbs.internal.PaddedLong");
    try {
      internal.getConstructor(long.class).newInstance(0L);
      throw new IllegalStateException("io.iwarp4j.verbs.internal was accessible by reflection");
    } catch (IllegalAccessException expected) {
      System.out.println("internal package refused: " + expected.getMessage());
    }
  }

  private static void check(boolean condition, String what) {
    if (!condition) {
      throw new IllegalStateException("expected: " + what);
    }
    System.out.println("checked: " + what);
  }
}
