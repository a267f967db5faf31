package io.iwarp4j.benchmarks.suite;

import io.iwarp4j.verbs.CompletionListener;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.WorkCompletion;

/**
 * A completion listener on the event loop that takes every completion its queue holds, in
 * batches of {@link #wc}'s length, re-arms the queue and polls once more (a completion that came
 * between the last poll and the re-arm fires no notification), handing each batch to
 * {@link #handle}: the listener side of the benchmarks that run on the loops.
 */
abstract class DrainingListener implements CompletionListener {
  /** The batch {@link #handle} reads: entries {@code 0..n-1}. */
  final WorkCompletion[] wc;

  DrainingListener(int batch) {
    wc = VerbsPair.completions(batch);
  }

  @Override
  public void onCompletion(CompletionQueue cq) {
    drain(cq);
  }

  /** Polls until the queue is empty and re-armed. */
  final void drain(CompletionQueue cq) {
    for (;;) {
      int n;
      while ((n = cq.poll(wc)) > 0) {
        handle(n);
      }
      cq.requestNotify(false);
      n = cq.poll(wc);
      if (n == 0) {
        return;
      }
      handle(n);
    }
  }

  /** Handles {@code wc[0..n-1]}. */
  abstract void handle(int n);
}
