package io.iwarp4j.it.model;

import java.util.ArrayDeque;

/** The last operations and what came of them, for the failure report that replays a seed. */
final class OpLog {
  private final int capacity;
  private final ArrayDeque<String> tail = new ArrayDeque<>();

  OpLog(int capacity) {
    this.capacity = capacity;
  }

  void add(int step, String line) {
    if (tail.size() == capacity) {
      tail.removeFirst();
    }
    tail.addLast(step + ": " + line);
  }

  @Override
  public String toString() {
    return String.join("\n  ", tail);
  }
}
