package io.iwarp4j.it.hostile;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The peer {@link PeerKillIT} kills: a separate JVM that connects to the device under test and
 * keeps an operation stream going until it is killed ({@code destroyForcibly}). It never exits
 * by itself except on an error (exit 2) or after {@value #LIFETIME_SECONDS} s (exit 3), so a
 * test that forgets it cannot leave it behind for long.
 *
 * <p>Arguments: {@code mode port stag address length}, the last three describing the test's
 * region. First it Sends the test its own region's 16-octet advertisement, then:
 * <ul>
 *   <li>{@code WRITE}: RDMA-Writes {@code length} octets into the test's region, 8 in flight,
 *       forever;</li>
 *   <li>{@code READ}: nothing: the test RDMA-Reads this peer's region, so this JVM's device
 *       sends Read Responses;</li>
 *   <li>{@code SEND}: Sends of {@code length} octets, but only as many as the test granted: the
 *       test RDMA-Writes its running count of posted receives into this peer's region at offset
 *       0 (an application-level credit, as Send-based ULPs use), so this peer never outruns the
 *       posted receives however slow the test thread is.</li>
 * </ul>
 * It prints {@code READY} once the stream is flowing (its first operation completed).
 */
final class KilledPeer {
  static final int LIFETIME_SECONDS = 120;
  private static final int IN_FLIGHT = 8;

  private KilledPeer() {
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    int port = Integer.parseInt(args[1]);
    int stag = (int) Long.parseLong(args[2]);
    long address = Long.parseLong(args[3]);
    int length = Integer.parseInt(args[4]);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIFETIME_SECONDS);
    RdmaDevice device = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build());
    ProtectionDomain pd = device.allocateProtectionDomain();
    CompletionQueue cq = device.createCompletionQueue(256);
    MemoryRegion region = pd.allocate(length, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ
        | AccessFlags.REMOTE_WRITE);
    for (int i = 8; i < length; i += 8) {
      region.buffer().setLong(i, 0x5EED_0000_0000_0000L | i);
    }
    MemoryRegion hello = pd.allocate(16, AccessFlags.LOCAL_WRITE);
    hello.buffer().setBytes(0, region.remote().toBytes());
    QueuePair qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq)
        .maxSendWr(IN_FLIGHT * 2).maxRecvWr(1).ird(16).ord(16).build());
    device.connect(qp, new InetSocketAddress("127.0.0.1", port), ConnectParams.defaults())
        .get(60, TimeUnit.SECONDS);
    qp.postSend(new SendWorkRequest(1).wrId(-1).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(hello, 0, 16));
    WorkCompletion[] out = new WorkCompletion[IN_FLIGHT * 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = new WorkCompletion();
    }
    take(cq, out);
    if (mode.equals("READ")) {
      System.out.println("READY");
      System.out.flush();
      Thread.sleep(TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()));
      System.exit(3);
    }
    boolean send = mode.equals("SEND");
    long posted = 0;
    int inFlight = 0;
    boolean ready = false;
    while (System.nanoTime() < end) {
      long granted = send ? region.getLong(0) : Long.MAX_VALUE;
      while (inFlight < IN_FLIGHT && posted < granted) {
        SendWorkRequest wr = new SendWorkRequest(1).wrId(posted)
            .flags(SendFlags.SIGNALED).addSge(region, 0, length);
        if (send) {
          wr.opcode(WorkRequestOpcode.SEND);
        } else {
          wr.opcode(WorkRequestOpcode.RDMA_WRITE).remote(stag, address);
        }
        qp.postSend(wr);
        posted++;
        inFlight++;
      }
      int n = cq.await(out, 1, 5, TimeUnit.MILLISECONDS);
      for (int i = 0; i < n; i++) {
        if (out[i].status() != WcStatus.SUCCESS) {
          System.out.println("FAILED " + out[i]);
          System.exit(2);
        }
        inFlight--;
        if (!ready) {
          ready = true;
          System.out.println("READY");
          System.out.flush();
        }
      }
    }
    System.exit(3);
  }

  private static void take(CompletionQueue cq, WorkCompletion[] out) throws Exception {
    if (cq.await(out, 1, 60, TimeUnit.SECONDS) != 1 || out[0].status() != WcStatus.SUCCESS) {
      System.out.println("FAILED hello " + out[0]);
      System.exit(2);
    }
  }
}
