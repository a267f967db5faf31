package io.iwarp4j.tools.perf;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * perftest's control queue pair ({@code comm->rdma_ctx}): TX and RX depth 1, one 56-octet
 * receive posted before the connection exists and reposted after each message, Sends
 * signaled with {@code wr_id} {@link PerftestExchange#SYNC_SPEC_ID}.
 */
final class QpMessageChannel implements MessageChannel {
  private static final int RECV_OFFSET = 0;
  private static final int SEND_OFFSET = 64;

  private final QueuePair qp;
  private final CompletionQueue sendCq;
  private final CompletionQueue recvCq;
  private final MemoryRegion buffer;
  private final RecvWorkRequest recv = new RecvWorkRequest(1);
  private final SendWorkRequest send = new SendWorkRequest(1);
  private final WorkCompletion[] wc = {new WorkCompletion()};
  private final long waitNanos;

  /**
   * Creates the queue pair and posts its receive.
   *
   * @param device the device
   * @param pd the protection domain
   * @param waitSeconds how long one message may take; the server waits this long between
   *     any two messages of the client, which includes the whole test, so it is large
   */
  QpMessageChannel(RdmaDevice device, ProtectionDomain pd, long waitSeconds) {
    sendCq = device.createCompletionQueue(4);
    recvCq = device.createCompletionQueue(4);
    qp = device.createQueuePair(pd, QueuePairConfig.builder(sendCq, recvCq).maxSendWr(2)
        .maxRecvWr(2).maxSendSge(1).maxRecvSge(1).ird(1).ord(1).build());
    buffer = pd.allocate(128, AccessFlags.LOCAL_WRITE);
    waitNanos = TimeUnit.SECONDS.toNanos(waitSeconds);
    postRecv();
  }

  QueuePair queuePair() {
    return qp;
  }

  private void postRecv() {
    qp.postRecv(recv.reset().wrId(PerftestExchange.SYNC_SPEC_ID)
        .addSge(buffer, RECV_OFFSET, PerftestExchange.DEST_SIZE));
  }

  @Override
  public void send(byte[] message) throws IOException {
    if (message.length > PerftestExchange.DEST_SIZE) {
      throw new IllegalArgumentException("control message of " + message.length + " octets");
    }
    buffer.buffer().setBytes(SEND_OFFSET, message);
    try {
      qp.postSend(send.reset().wrId(PerftestExchange.SYNC_SPEC_ID)
          .opcode(WorkRequestOpcode.SEND).flags(SendFlags.SIGNALED)
          .addSge(buffer, SEND_OFFSET, message.length));
    } catch (IllegalStateException e) {
      throw new IOException("control connection is " + qp.state() + ": " + e.getMessage(), e);
    }
    WorkCompletion c = await(sendCq, "sending a control message");
    if (!c.isSuccess() || c.opcode() != WcOpcode.SEND) {
      throw new IOException("control message send failed: " + c.status()
          + vendor(c));
    }
  }

  @Override
  public byte[] receive() throws IOException {
    WorkCompletion c = await(recvCq, "waiting for the peer's control message");
    if (!c.isSuccess()) {
      throw new IOException("control connection failed (peer gone?): " + c.status() + vendor(c));
    }
    byte[] m = new byte[(int) c.byteLen()];
    buffer.buffer().getBytes(RECV_OFFSET, m);
    postRecv();
    return m;
  }

  /**
   * Waits until the peer closed the connection (the posted receive flushes, or the queue pair
   * leaves RTS), at most {@code millis}.
   *
   * @param millis the bound
   * @return whether the peer closed within it
   */
  boolean awaitPeerClose(long millis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    try {
      while (System.nanoTime() - deadline < 0) {
        QpState s = qp.state();
        if (s == QpState.ERROR || s == QpState.CLOSED) {
          return true;
        }
        if (recvCq.await(wc, 1, 50, TimeUnit.MILLISECONDS) == 1 && !wc[0].isSuccess()) {
          return true;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }

  private WorkCompletion await(CompletionQueue cq, String what) throws IOException {
    long deadline = System.nanoTime() + waitNanos;
    try {
      while (true) {
        if (cq.await(wc, 1, 200, TimeUnit.MILLISECONDS) == 1) {
          return wc[0];
        }
        QpState s = qp.state();
        if (s == QpState.ERROR || s == QpState.CLOSED) {
          throw new IOException(what + ": the control connection is " + s + " (peer gone?)");
        }
        if (System.nanoTime() - deadline > 0) {
          throw new IOException(what + ": nothing within " + waitNanos / 1_000_000_000L + " s");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(what + ": interrupted", e);
    }
  }

  private static String vendor(WorkCompletion c) {
    return c.vendorError() == 0 ? "" : String.format(" (Terminate 0x%06x)", c.vendorError());
  }
}
