package io.iwarp4j.tools.perf;

import io.netty.buffer.ByteBuf;
import java.lang.invoke.VarHandle;

/**
 * The sender's half of perftest's send_bw credit scheme on iWARP ({@code send_rcredit}): a Send
 * without a posted receive is fatal on iWARP (a Terminate), so the receiver RDMA-Writes the
 * number of messages it has received so far (a host-order, i.e. little-endian, 32-bit word)
 * into the sender's credit word every {@code rx_depth / 3} receives, and the sender keeps
 * fewer than {@code rx_depth} messages beyond that count in flight.
 */
final class SendCredits {
  private final ByteBuf[] words;
  private final long rxDepth;

  SendCredits(PerfSession s) {
    words = new ByteBuf[s.qps.length];
    for (int i = 0; i < words.length; i++) {
      words[i] = s.credit[i].buffer();
    }
    this.rxDepth = Math.min(s.opts.rxDepth(), s.opts.iterations());
  }

  /** Before each size: nothing received yet ({@code credit_buf[j] = 0}). */
  void reset() {
    for (ByteBuf w : words) {
      w.setIntLE(0, 0);
    }
  }

  /** {@code swindow = scnt + 1 - credit; swindow >= rx_depth} blocks the post. */
  boolean mayPost(int qp, long scnt) {
    VarHandle.acquireFence();
    long credit = words[qp].getUnsignedIntLE(0);
    return ((scnt + 1 - credit) & 0xFFFF_FFFFL) < rxDepth;
  }
}
