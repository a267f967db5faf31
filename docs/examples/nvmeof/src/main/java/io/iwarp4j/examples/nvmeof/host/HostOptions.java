package io.iwarp4j.examples.nvmeof.host;

import java.util.Objects;
import java.util.UUID;

/**
 * How an {@link NvmeHost} connects.
 *
 * @param subNqn the subsystem to connect to
 * @param hostNqn this host's NQN
 * @param hostId this host's identifier
 * @param ioQueues how many I/O queues to connect, at least 1
 * @param queueEntries entries of each I/O queue (queue depth), 2 to 1024
 * @param katoMillis the keep-alive timeout asked for in the admin Connect, 0 for none
 * @param sendKeepAlive whether to send Keep Alive every KATO / 2 (off only to test a silent host)
 * @param inCapsuleWrites whether Writes small enough go in the command capsule (when the target
 *     offers in-capsule data)
 * @param perIoRegistration whether I/O queues register each command's buffer (REG_MR, remote
 *     invalidation), as Linux does; else they use a pre-registered pool
 * @param firstFpduDelayMillis how long each queue keeps quiet after the target's MPA Reply before
 *     its Fabrics Connect, 0 to 10,000: Linux siw as the target's transport can leave an FPDU that
 *     arrives at once unread (its accept race, docs/interop.md), and nvmet-rdma then never sees
 *     the Connect; 50 ms by default, as iwarp-ping
 */
public record HostOptions(String subNqn, String hostNqn, UUID hostId, int ioQueues,
    int queueEntries, int katoMillis, boolean sendKeepAlive, boolean inCapsuleWrites,
    boolean perIoRegistration, int firstFpduDelayMillis) {
  /** The default quiet period after the MPA Reply, in milliseconds. */
  public static final int DEFAULT_FIRST_FPDU_DELAY_MILLIS = 50;

  public HostOptions {
    Objects.requireNonNull(subNqn, "subNqn");
    Objects.requireNonNull(hostNqn, "hostNqn");
    Objects.requireNonNull(hostId, "hostId");
    if (ioQueues < 1 || ioQueues > 64) {
      throw new IllegalArgumentException("ioQueues must be 1 to 64, not " + ioQueues);
    }
    if (queueEntries < 2 || queueEntries > 1024) {
      throw new IllegalArgumentException("queueEntries must be 2 to 1024, not " + queueEntries);
    }
    if (katoMillis < 0) {
      throw new IllegalArgumentException("katoMillis must be at least 0");
    }
    if (firstFpduDelayMillis < 0 || firstFpduDelayMillis > 10_000) {
      throw new IllegalArgumentException("firstFpduDelayMillis must be 0 to 10000, not "
          + firstFpduDelayMillis);
    }
  }

  /**
   * One I/O queue of 32 entries, KATO 5 s with Keep Alive, in-capsule writes, per-I/O
   * registration, 50 ms quiet after each MPA Reply.
   */
  public static HostOptions of(String subNqn) {
    UUID id = UUID.randomUUID();
    return new HostOptions(subNqn, "nqn.2014-08.org.nvmexpress:uuid:" + id, id, 1, 32, 5000,
        true, true, true, DEFAULT_FIRST_FPDU_DELAY_MILLIS);
  }

  public HostOptions withIoQueues(int n) {
    return new HostOptions(subNqn, hostNqn, hostId, n, queueEntries, katoMillis, sendKeepAlive,
        inCapsuleWrites, perIoRegistration, firstFpduDelayMillis);
  }

  public HostOptions withQueueEntries(int n) {
    return new HostOptions(subNqn, hostNqn, hostId, ioQueues, n, katoMillis, sendKeepAlive,
        inCapsuleWrites, perIoRegistration, firstFpduDelayMillis);
  }

  public HostOptions withKeepAlive(int kato, boolean send) {
    return new HostOptions(subNqn, hostNqn, hostId, ioQueues, queueEntries, kato, send,
        inCapsuleWrites, perIoRegistration, firstFpduDelayMillis);
  }

  public HostOptions withPerIoRegistration(boolean on) {
    return new HostOptions(subNqn, hostNqn, hostId, ioQueues, queueEntries, katoMillis,
        sendKeepAlive, inCapsuleWrites, on, firstFpduDelayMillis);
  }

  public HostOptions withInCapsuleWrites(boolean on) {
    return new HostOptions(subNqn, hostNqn, hostId, ioQueues, queueEntries, katoMillis,
        sendKeepAlive, on, perIoRegistration, firstFpduDelayMillis);
  }

  /** The quiet period after each MPA Reply before the queue's first message, in milliseconds. */
  public HostOptions withFirstFpduDelay(int millis) {
    return new HostOptions(subNqn, hostNqn, hostId, ioQueues, queueEntries, katoMillis,
        sendKeepAlive, inCapsuleWrites, perIoRegistration, millis);
  }
}
