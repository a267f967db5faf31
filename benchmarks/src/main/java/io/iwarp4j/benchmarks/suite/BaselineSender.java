package io.iwarp4j.benchmarks.suite;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The raw-Netty baseline's counterpart of a queue pair's send queue: the application thread
 * posts messages (a counter, no allocation), the connection's event loop writes every message
 * posted since its last run and flushes once per batch, the way iwarp4j hands work requests to
 * its loop. A pushed message completes when the socket has taken it (like a Write or Send
 * completion); a pulled one when its response has arrived (like a Read).
 *
 * <p>The batch's completion rides on a promise on its last write: one promise object per batch,
 * which is the baseline's only per-batch allocation.
 */
final class BaselineSender implements Runnable, GenericFutureListener<Future<Void>> {
  private final Channel channel;
  private final ByteBuf source;
  private final int size;
  private final boolean pull;
  private final boolean track;
  private final ByteBuf request;
  private final AtomicLong posted = new AtomicLong();
  private final AtomicLong completed = new AtomicLong();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final long[] batches = new long[1 << 16];
  private int batchHead;
  private int batchTail;
  private long issued;
  private volatile Thread waiter;

  /**
   * Creates the sender of one connection.
   *
   * @param channel the connection
   * @param source what a pushed message sends ({@code size} octets from index 0); the caller
   *     owns it
   * @param size message size
   * @param pull whether a message is a request for {@code size} octets rather than a push
   * @param track whether pushed messages complete (false: fire and forget, like an unsignaled
   *     Send; the caller tracks the peer's answer itself)
   */
  BaselineSender(Channel channel, ByteBuf source, int size, boolean pull, boolean track) {
    this.channel = channel;
    this.source = source;
    this.size = size;
    this.pull = pull;
    this.track = track;
    this.request = pull
        ? PooledByteBufAllocator.DEFAULT.directBuffer(6).writeShort(4).writeInt(size) : null;
  }

  /** Messages posted and not completed. */
  long outstanding() {
    return posted.get() - completed.get();
  }

  /** Posts one message (any thread). */
  void post() {
    posted.incrementAndGet();
    if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
      channel.eventLoop().execute(this);
    }
  }

  /** Waits (parked, bounded) until fewer than {@code limit} messages are outstanding. */
  void awaitBelow(long limit) {
    if (outstanding() < limit) {
      return;
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(VerbsPair.WAIT_SECONDS);
    waiter = Thread.currentThread();
    try {
      while (outstanding() >= limit) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !channel.isActive()) {
          throw new IllegalStateException("baseline: " + outstanding() + " messages still"
              + " outstanding after " + VerbsPair.WAIT_SECONDS + " s (channel active: "
              + channel.isActive() + ")");
        }
        LockSupport.parkNanos(this, left);
      }
    } finally {
      waiter = null;
    }
  }

  /** Counts one pulled message whose response has fully arrived (event loop). */
  void completeOne() {
    completed.incrementAndGet();
    wake();
  }

  private void wake() {
    Thread t = waiter;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /** The event loop's batch: writes what was posted since the last batch, then flushes. */
  @Override
  public void run() {
    scheduled.set(false);
    long target = posted.get();
    long count = target - issued;
    if (count == 0) {
      return;
    }
    for (long k = 0; k < count; k++) {
      if (pull) {
        channel.write(request.retainedDuplicate(), channel.voidPromise());
      } else {
        FrameReceiver.writeMessage(channel, source, size,
            track && k == count - 1 ? batchPromise(count) : null);
      }
    }
    issued = target;
    channel.flush();
  }

  private ChannelPromise batchPromise(long count) {
    batches[batchTail++ & (batches.length - 1)] = count;
    ChannelPromise p = channel.newPromise();
    p.addListener(this);
    return p;
  }

  /** A pushed batch went to the socket (event loop; batches complete in order). */
  @Override
  public void operationComplete(Future<Void> future) {
    long count = batches[batchHead++ & (batches.length - 1)];
    if (future.isSuccess()) {
      completed.addAndGet(count);
    }
    wake();
  }

  /** Releases the request template (the caller releases {@code source}). */
  void release() {
    if (request != null) {
      request.release();
    }
  }
}
