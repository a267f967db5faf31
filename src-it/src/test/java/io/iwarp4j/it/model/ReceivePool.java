package io.iwarp4j.it.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The receives a queue pair's peer may consume: its own receive queue, or a shared receive
 * queue. {@link #available} is what the generator counts on (receives posted minus messages the
 * peer posted); {@link #posted} every receive ever posted to it, for the checks.
 */
final class ReceivePool {
  final String name;
  final boolean shared;
  final List<WorkRequestModel> posted = new ArrayList<>();
  int available;

  ReceivePool(String name, boolean shared) {
    this.name = name;
    this.shared = shared;
  }

  /** Receives posted that have not completed (or been dropped). */
  int unresolved() {
    int n = 0;
    for (WorkRequestModel r : posted) {
      if (!r.resolved()) {
        n++;
      }
    }
    return n;
  }
}
