package io.iwarp4j.examples.nvmeof.server;

import io.iwarp4j.examples.nvmeof.wire.Properties;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One association: the controller a host made with its admin queue's Connect, its properties,
 * its keep-alive deadline and its queues. Queues of one controller run on different event
 * loops, so the shared fields are volatile or concurrent.
 */
final class Controller {
  final int cntlid;
  final UUID hostId;
  final String hostNqn;
  private final List<TargetQueue> queues = new CopyOnWriteArrayList<>();
  private final AtomicBoolean torn = new AtomicBoolean();
  private volatile int cc;
  private volatile int csts;
  private volatile int katoMillis;
  private volatile long lastActivityNanos = System.nanoTime();

  Controller(int cntlid, UUID hostId, String hostNqn, int katoMillis) {
    this.cntlid = cntlid;
    this.hostId = hostId;
    this.hostNqn = hostNqn;
    this.katoMillis = katoMillis;
  }

  void add(TargetQueue queue) {
    queues.add(queue);
  }

  List<TargetQueue> queues() {
    return queues;
  }

  int cc() {
    return cc;
  }

  int csts() {
    return csts;
  }

  /** CC written by the host: EN 0 to 1 makes the controller ready, 1 to 0 resets it, SHN shuts it down. */
  synchronized void writeCc(int value) {
    int old = cc;
    cc = value;
    int status = csts;
    if ((value & Properties.CC_ENABLE) != 0 && (old & Properties.CC_ENABLE) == 0) {
      status |= Properties.CSTS_READY;
    } else if ((value & Properties.CC_ENABLE) == 0) {
      status = 0;
    }
    if ((value & Properties.CC_SHN_MASK) != 0) {
      status = (status & ~Properties.CSTS_SHST_MASK) | Properties.CSTS_SHST_COMPLETE;
    }
    csts = status;
  }

  boolean isReady() {
    return (csts & Properties.CSTS_READY) != 0;
  }

  int katoMillis() {
    return katoMillis;
  }

  void katoMillis(int millis) {
    katoMillis = millis;
  }

  /** Any command on any of its queues counts as traffic that keeps the association alive. */
  void touch() {
    lastActivityNanos = System.nanoTime();
  }

  /** Whether KATO has passed with no command from the host. */
  boolean keepAliveExpired(long nowNanos) {
    int kato = katoMillis;
    return kato > 0 && nowNanos - lastActivityNanos > kato * 1_000_000L;
  }

  /** Marks it torn down; true only for the first caller. */
  boolean tearDown() {
    return torn.compareAndSet(false, true);
  }

  boolean isTornDown() {
    return torn.get();
  }
}
