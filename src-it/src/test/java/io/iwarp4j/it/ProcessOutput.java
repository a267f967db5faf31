package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The output of a child process, read line by line on a daemon thread. Tests wait for a line
 * with {@link #await} and quote everything read so far with {@link #text()}: both are safe while
 * the reader still appends (an unguarded {@code "..." + list} in an assertion message iterates
 * the list while the reader adds to it, which once failed CI with a
 * ConcurrentModificationException instead of the real verdict).
 */
public final class ProcessOutput {
  private final BlockingQueue<String> fresh = new LinkedBlockingQueue<>();
  private final List<String> all = new ArrayList<>();
  private final Thread reader;

  private ProcessOutput(Process process, String threadName, Consumer<String> echo) {
    reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          synchronized (all) {
            all.add(line);
          }
          fresh.add(line);
          echo.accept(line);
        }
      } catch (IOException ended) {
        // the process ended or was killed
      }
    }, threadName);
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts reading {@code process}'s standard output (merge stderr into it when building it). */
  public static ProcessOutput follow(Process process, String threadName) {
    return new ProcessOutput(process, threadName, line -> { });
  }

  /** As {@link #follow(Process, String)}, also handing each line to {@code echo}. */
  public static ProcessOutput follow(Process process, String threadName, Consumer<String> echo) {
    return new ProcessOutput(process, threadName, echo);
  }

  /**
   * The next unread line that {@code match} accepts, skipping the others; fails naming
   * {@code what} and quoting all output if none arrives within {@code timeout}.
   */
  public String await(Predicate<String> match, String what, long timeout, TimeUnit unit)
      throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    for (;;) {
      String line = fresh.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (line == null) {
        fail("no " + what + " within " + timeout + " " + unit.toString().toLowerCase()
            + "; output so far:\n" + text());
      }
      if (match.test(line)) {
        return line;
      }
    }
  }

  /** Every line read so far, one per line. */
  public String text() {
    synchronized (all) {
      return String.join("\n", all);
    }
  }

  /** Whether some line read so far equals {@code line}. */
  public boolean contains(String line) {
    synchronized (all) {
      return all.contains(line);
    }
  }

  /** Waits for the reader to reach the end of the output; whether it did. */
  public boolean awaitEnd(long timeout, TimeUnit unit) throws InterruptedException {
    reader.join(Math.max(1, unit.toMillis(timeout)));
    return !reader.isAlive();
  }

  @Override
  public String toString() {
    return text();
  }
}
