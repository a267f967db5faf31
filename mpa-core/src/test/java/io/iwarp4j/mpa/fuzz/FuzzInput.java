package io.iwarp4j.mpa.fuzz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * Feeds fuzzer-chosen octets to a channel in fuzzer-chosen read sizes, the way TCP may cut them,
 * and remembers every buffer so a target can check afterwards that each one was released.
 */
public final class FuzzInput {
  private final List<ByteBuf> fed = new ArrayList<>();

  /**
   * Splits {@code wire} into reads whose sizes the fuzzer picks (1 to {@code maxRead} octets; the
   * rest in one read once the fuzzer's data runs out) and fires each as a direct buffer.
   *
   * @param ch the channel
   * @param data the rest of the fuzz input: two octets per read size
   * @param wire the octets
   * @param maxRead the largest read
   * @param afterEach called after every read, for invariants
   */
  public void feed(EmbeddedChannel ch, ByteCursor data, byte[] wire, int maxRead,
      Runnable afterEach) {
    int off = 0;
    while (off < wire.length && ch.isOpen()) {
      int n = data.remaining() > 0 ? data.intIn(1, maxRead) : maxRead;
      n = Math.min(n, wire.length - off);
      ByteBuf b = Unpooled.directBuffer(n, n).writeBytes(wire, off, n);
      fed.add(b);
      ch.pipeline().fireChannelRead(b);
      ch.runPendingTasks();
      off += n;
      afterEach.run();
    }
  }

  /**
   * Whether every buffer fed was released exactly once by the code under test.
   *
   * @return the first buffer still referenced, described, or null when all were released
   */
  public String unreleased() {
    for (int i = 0; i < fed.size(); i++) {
      if (fed.get(i).refCnt() != 0) {
        return "read " + i + " still has refCnt " + fed.get(i).refCnt();
      }
    }
    return null;
  }

  /** Releases whatever the code under test kept, so a failing input does not also leak. */
  public void releaseRemaining() {
    for (ByteBuf b : fed) {
      if (b.refCnt() > 0) {
        b.release(b.refCnt());
      }
    }
  }
}
