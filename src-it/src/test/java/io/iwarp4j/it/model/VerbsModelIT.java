package io.iwarp4j.it.model;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A model-based test of the verbs API (issue 20): long seeded random sequences of posts (Send,
 * Immediate Data, RDMA Write, Write with Immediate, Read, both Atomics, receives on a queue pair
 * and on a shared receive queue), polls, registrations and deregistrations ({@code close()} and
 * {@code closeChecked()}, also of memory in use), queue pair close, disconnect,
 * {@code modifyToError}, and peer faults (an access to a deregistered STag, a Send with no
 * receive posted), on two devices over 127.0.0.1, checked against a reference model
 * ({@link QueuePairModel}, {@link CompletionChecker}; operations from {@link OperationGenerator}):
 * every work request completes exactly once with a status the model allows, successful
 * transfers carry exactly the octets posted, no octet reaches deregistered memory (each region's
 * caller-owned memory holds a canary from its close on), and nothing leaks (every reference on
 * that memory returns, the counters agree, Netty's PARANOID leak detector).
 *
 * <p>CI runs seeds 1 to 5, 2,000 operations each. {@code -Dmodel.seed=N} runs that seed alone,
 * {@code -Dmodel.seeds=N} that many seeds from {@code -Dmodel.firstSeed} (default 1), and
 * {@code -Dmodel.steps=N} operations per seed. A failure names the seed, the step and the last
 * operations; the operations a seed draws do not depend on timing, so it replays.
 */
@Timeout(300)
class VerbsModelIT {
  private static final int STEPS = Integer.getInteger("model.steps", 2000);

  @Test
  void randomOperationSequencesMatchTheModel() throws Exception {
    List<Long> seeds = new ArrayList<>();
    String one = System.getProperty("model.seed");
    if (one != null && !one.isBlank()) {
      seeds.add(Long.parseLong(one.trim()));
    } else {
      long first = Long.getLong("model.firstSeed", 1);
      for (long s = first; s < first + Integer.getInteger("model.seeds", 5); s++) {
        seeds.add(s);
      }
    }
    for (long seed : seeds) {
      long start = System.nanoTime();
      try (ModelRun run = new ModelRun(seed)) {
        run.run(STEPS);
        System.out.printf("VerbsModelIT %s, %d steps in %d ms%n", run.summary(), STEPS,
            (System.nanoTime() - start) / 1_000_000);
      }
    }
  }
}
