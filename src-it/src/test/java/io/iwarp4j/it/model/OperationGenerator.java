package io.iwarp4j.it.model;

import io.iwarp4j.it.model.Op.Type;
import io.iwarp4j.it.model.WorkRequestModel.Kind;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Draws the next operation from a seeded generator. Its choices depend only on the seed and on
 * what the driver did before (posted counts, regions, faults it injected), never on when the
 * stack completed something, so a seed replays the same sequence of operations.
 */
final class OperationGenerator {
  private final SplittableRandom random;
  private final QueuePairModel[][] pairs;
  private final List<RegionModel> regions;
  private final int completionQueues;
  private final boolean atomics;

  OperationGenerator(long seed, QueuePairModel[][] pairs, List<RegionModel> regions,
      int completionQueues, boolean atomics) {
    this.random = new SplittableRandom(seed);
    this.pairs = pairs;
    this.regions = regions;
    this.completionQueues = completionQueues;
    this.atomics = atomics;
  }

  long nextLong() {
    return random.nextLong();
  }

  boolean nextBoolean() {
    return random.nextBoolean();
  }

  Op next() {
    int roll = random.nextInt(1000);
    int pair = random.nextInt(pairs.length);
    int side = random.nextInt(2);
    QueuePairModel q = pairs[pair][side];
    if (q.generatorFaulted || q.peer.generatorFaulted) {
      // A connection the driver broke: revive it, or now and then post into it (flushed).
      if (roll < 150) {
        return new Op(Type.REVIVE, pair, 0, null, 0, true, 0, !q.closed && !q.peer.closed
            && random.nextInt(4) != 0);
      }
      if (roll < 900 || q.closed) {
        return Op.of(Type.POLL, 0, 0).withIndex(random.nextInt(completionQueues));
      }
      return roll < 950 ? postSend(pair, side, q) : Op.of(Type.POST_RECV, pair, side);
    }
    if (roll < 380) {
      return postSend(pair, side, q);
    }
    if (roll < 600) {
      return Op.of(Type.POST_RECV, pair, side);
    }
    if (roll < 850) {
      return Op.of(Type.POLL, 0, 0).withIndex(random.nextInt(completionQueues));
    }
    if (roll < 880) {
      return new Op(Type.REGISTER, 0, side, null, 0, true, random.nextInt(2), false);
    }
    if (roll < 930) {
      return new Op(Type.DEREGISTER, 0, 0, null, 0, true, random.nextInt(regions.size()),
          random.nextBoolean());
    }
    if (roll < 945) {
      return new Op(Type.DEAD_STAG_ACCESS, pair, side, random.nextInt(3) == 0 ? Kind.READ
          : Kind.WRITE, length(), true, 0, false);
    }
    if (roll < 955) {
      return Op.of(Type.SEND_WITHOUT_RECEIVE, pair, side);
    }
    if (roll < 963) {
      return Op.of(Type.MODIFY_TO_ERROR, pair, side);
    }
    if (roll < 971) {
      return Op.of(Type.DISCONNECT, pair, side);
    }
    if (roll < 977) {
      return Op.of(Type.CLOSE_QP, pair, side);
    }
    if (roll < 985) {
      return Op.of(Type.ABRUPT_CLOSE, ModelRun.RELAYED_PAIR, 0);
    }
    return Op.of(Type.QUIESCE, 0, 0);
  }

  private Op postSend(int pair, int side, QueuePairModel q) {
    Kind kind;
    boolean receive = q.peer.receives.available > 0;
    for (;;) {
      int k = random.nextInt(100);
      kind = k < 25 ? Kind.SEND : k < 33 ? Kind.IMMEDIATE : k < 55 ? Kind.WRITE
          : k < 63 ? Kind.WRITE_IMMEDIATE : k < 85 ? Kind.READ : k < 93 ? Kind.FETCH_ADD
          : Kind.CMP_SWAP;
      if ((receive || !kind.consumesReceive()) && (atomics || !kind.atomic())) {
        break;
      }
    }
    int length = kind.atomic() ? 8 : kind == Kind.IMMEDIATE ? 0 : length();
    boolean signaled = kind.answered() || kind == Kind.IMMEDIATE || random.nextInt(4) != 0;
    return new Op(Type.POST_SEND, pair, side, kind, length, signaled, 0, false);
  }

  /** Mostly small (copied behind the header), sometimes zero-copy sized, once in a while large. */
  private int length() {
    int r = random.nextInt(10);
    return r < 6 ? 8 + random.nextInt(505) : r < 9 ? 513 + random.nextInt(2048)
        : 2561 + random.nextInt(1536);
  }
}
