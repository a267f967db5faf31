package io.iwarp4j.tools.ping;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectionEventListener;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * {@code --stream-after-rtr=N}: N Sends of {@code -S} octets posted back to back the moment the
 * connection is established, so in peer-to-peer mode they follow the RTR at once (the first-FPDU
 * path under load, which rping's lock-step exchange never loads). Each end pre-posts N receives
 * before it connects or accepts and streams its own N Sends, as rdma-core's {@code ucmatose} does
 * (its server streams {@code -C} Sends of {@code -S} octets after ESTABLISHED and takes as many;
 * its client receives first), so the client can face {@code ucmatose} in a siw guest as well as
 * {@code iwarp-ping -s --stream-after-rtr=N}. Message {@code i} carries rping's payload of ping
 * {@code i} ({@link PingData}); {@code -V} checks every received message against it (a
 * {@code ucmatose} peer sends uninitialised buffers: checked for count and length only).
 */
final class PingStream implements AutoCloseable {
  /** The largest N; with -S it bounds the two regions (2 x N x size). */
  static final int MAX_MESSAGES = 4096;
  private static final long SEND_WR_ID_BASE = 1L << 32;

  final QueuePair qp;
  final ConnectionEventListener events;
  private final CompletionQueue cq;
  private final MemoryRegion sendRegion;
  private final MemoryRegion recvRegion;
  private final PingOptions o;
  private final int n;
  private final int size;
  private final SendWorkRequest send = new SendWorkRequest(1);
  private final RecvWorkRequest recv = new RecvWorkRequest(1);
  private final WorkCompletion[] wcs = new WorkCompletion[16];
  private volatile TerminateInfo terminate;

  PingStream(RdmaDevice device, ProtectionDomain pd, PingOptions o, PrintStream err,
      String side) {
    this.o = o;
    this.n = o.streamAfterRtr;
    this.size = o.size;
    for (int i = 0; i < wcs.length; i++) {
      wcs[i] = new WorkCompletion();
    }
    cq = device.createCompletionQueue(2 * n + 2);
    QueuePair q = null;
    MemoryRegion s = null;
    MemoryRegion r = null;
    try {
      q = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq).maxSendWr(n).maxRecvWr(n)
          .maxSendSge(1).maxRecvSge(1).build());
      s = pd.allocate(n * size, AccessFlags.LOCAL_WRITE);
      r = pd.allocate(n * size, AccessFlags.LOCAL_WRITE);
    } catch (RuntimeException e) {
      closeAll(r, s, q, cq);
      throw e;
    }
    qp = q;
    sendRegion = s;
    recvRegion = r;
    events = e -> {
      if (e.type() == ConnectionEventType.DISCONNECTED) {
        err.println(side + " DISCONNECT EVENT...");
      } else if (e.type() == ConnectionEventType.ERROR) {
        if (e.terminate() != null) {
          terminate = e.terminate();
        }
        if (o.debug) {
          err.println(side + " connection error: " + (e.terminate() != null ? e.terminate()
              : e.reason()));
        }
      }
    };
  }

  /** Posts the N receives, message i into slice i; before connect or accept. */
  void postReceives() {
    for (int i = 0; i < n; i++) {
      recv.reset().wrId(i).addSge(recvRegion, (long) i * size, size);
      qp.postRecv(recv);
    }
  }

  /** Fills slice i with message i and posts the N Sends back to back. */
  void stream() {
    ByteBuf b = sendRegion.buffer();
    for (int i = 0; i < n; i++) {
      PingData.fill(b, i * size, size, i);
    }
    for (int i = 0; i < n; i++) {
      send.reset().wrId(SEND_WR_ID_BASE + i).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED).addSge(sendRegion, (long) i * size, size);
      qp.postSend(send);
    }
  }

  /**
   * Waits until the N Sends completed and N messages arrived, checking each one's length and,
   * with {@code -V}, its content.
   *
   * @return a one-line summary
   */
  String await() throws PingException, InterruptedException {
    long deadline = System.nanoTime() + o.timeout.toNanos();
    int sent = 0;
    int received = 0;
    ByteBuf in = recvRegion.buffer();
    ByteBuf expected = Unpooled.buffer(size);
    try {
      while (sent < n || received < n) {
        long left = deadline - System.nanoTime();
        int got = left <= 0 ? 0 : cq.await(wcs, left, TimeUnit.NANOSECONDS);
        if (got == 0) {
          throw new PingException("timed out after " + o.timeout.toSeconds() + " s with " + sent
              + " of " + n + " Sends completed and " + received + " of " + n
              + " messages received");
        }
        for (int k = 0; k < got; k++) {
          WorkCompletion c = wcs[k];
          if (!c.isSuccess()) {
            TerminateInfo t = terminate;
            throw new PingException((c.status() == WcStatus.WR_FLUSH_ERR
                ? "the connection closed" : "completion failed with " + c.status()
                + " (vendor error 0x" + Integer.toHexString(c.vendorError()) + ")")
                + " after " + sent + " of " + n + " Sends and " + received + " of " + n
                + " receives" + (t != null ? " (" + t + ")" : ""));
          }
          if (c.opcode() == WcOpcode.SEND) {
            sent++;
          } else if (c.opcode() == WcOpcode.RECV) {
            int i = (int) c.wrId();
            if (i != received) {
              throw new PingException("message " + received + " completed receive " + i
                  + " (receives complete in order)");
            }
            if (c.byteLen() != size) {
              throw new PingException("message " + i + " has " + c.byteLen() + " octets, not "
                  + size);
            }
            if (o.validate) {
              PingData.fill(expected, 0, size, i);
              expected.writerIndex(size); // ByteBufUtil.equals compares readable octets only
              if (!ByteBufUtil.equals(in, i * size, expected, 0, size)) {
                throw new PingException("data mismatch! (message " + i + ")");
              }
            }
            received++;
          } else {
            throw new PingException("unexpected " + c.opcode() + " completion");
          }
        }
      }
    } finally {
      expected.release();
    }
    return "stream: " + n + " Sends of " + size + " octets posted right after the connection was"
        + " established, " + sent + "/" + n + " completed; " + received + "/" + n
        + " messages of " + size + " octets received" + (o.validate ? " and verified" : "");
  }

  @Override
  public void close() {
    closeAll(qp, sendRegion, recvRegion, cq);
  }

  private static void closeAll(AutoCloseable... all) {
    for (AutoCloseable c : all) {
      if (c == null) {
        continue;
      }
      try {
        c.close();
      } catch (Exception e) {
        // Closing after a failure: the first error is the one reported.
      }
    }
  }
}
