package io.iwarp4j.it;

import io.iwarp4j.benchmarks.suite.NettyBandwidthBenchmark;
import io.iwarp4j.benchmarks.suite.NettyLatencyBenchmark;
import io.iwarp4j.benchmarks.suite.NettyStreamBenchmark;
import io.iwarp4j.benchmarks.suite.NioStreamBenchmark;
import io.iwarp4j.benchmarks.suite.VerbsBandwidthBenchmark;
import io.iwarp4j.benchmarks.suite.VerbsLatencyBenchmark;
import io.iwarp4j.benchmarks.suite.VerbsLoopLatencyBenchmark;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Runs every state of the JMH suite (benchmarks module, {@code io.iwarp4j.benchmarks.suite})
 * through its life cycle the way JMH does (trial setup, operations, iteration teardown, trial
 * teardown) with a few hundred operations, under Netty's PARANOID leak detector: a benchmark
 * that fails, hangs, or leaks a buffer fails here instead of in a long suite run. Times nothing.
 */
@Timeout(120)
class BenchmarkSuiteIT {
  private static final int OPS = 300;

  @ParameterizedTest(name = "{0} {1} B depth {2} crc {3} qps {4}")
  @CsvSource({
      "WRITE, 64, 1, true, 1", "WRITE, 65536, 16, false, 2", "WRITE, 1048576, 4, true, 1",
      "READ, 64, 1, true, 1", "READ, 65536, 128, false, 2", "READ, 1048576, 4, true, 1",
      "SEND, 64, 128, true, 1", "SEND, 4096, 1, false, 8", "SEND, 1048576, 4, true, 1"})
  void verbsBandwidth(String op, int size, int depth, boolean crc, int qps) throws Exception {
    VerbsBandwidthBenchmark b = new VerbsBandwidthBenchmark();
    b.op = op;
    b.size = size;
    b.depth = depth;
    b.crc = crc;
    b.qps = qps;
    b.setUp();
    try {
      for (int iteration = 0; iteration < 2; iteration++) {
        for (int i = 0; i < OPS; i++) {
          b.message();
        }
        b.drain();
      }
    } finally {
      b.tearDown();
    }
  }

  @ParameterizedTest(name = "SEND over a shared receive queue {0} B depth {1} crc {2} qps {3}")
  @CsvSource({"64, 128, true, 1", "4096, 1, false, 8", "65536, 16, true, 2"})
  void verbsBandwidthSharedReceiveQueue(int size, int depth, boolean crc, int qps)
      throws Exception {
    VerbsBandwidthBenchmark b = new VerbsBandwidthBenchmark();
    b.op = "SEND";
    b.size = size;
    b.depth = depth;
    b.crc = crc;
    b.qps = qps;
    b.srq = true;
    b.setUp();
    try {
      for (int iteration = 0; iteration < 2; iteration++) {
        for (int i = 0; i < OPS; i++) {
          b.message();
        }
        b.drain();
      }
    } finally {
      b.tearDown();
    }
  }

  @ParameterizedTest(name = "{0} inline {1} B depth {2} crc {3}")
  @CsvSource({"WRITE, 64, 128, false", "SEND, 64, 128, true", "SEND, 80, 1, false"})
  void verbsBandwidthInline(String op, int size, int depth, boolean crc) throws Exception {
    VerbsBandwidthBenchmark b = new VerbsBandwidthBenchmark();
    b.op = op;
    b.size = size;
    b.depth = depth;
    b.crc = crc;
    b.qps = 1;
    b.inline = true;
    b.setUp();
    try {
      for (int iteration = 0; iteration < 2; iteration++) {
        for (int i = 0; i < OPS; i++) {
          b.message();
        }
        b.drain();
      }
    } finally {
      b.tearDown();
    }
  }

  @ParameterizedTest(name = "{0} cqMod {1} depth {2} qps {3}")
  @CsvSource({"WRITE, 100, 128, 1", "SEND, 16, 128, 1", "WRITE, 7, 8, 2"})
  void verbsBandwidthModerated(String op, int cqMod, int depth, int qps) throws Exception {
    // Unsignaled messages retire with the next signaled one; an iteration's unsignaled tail
    // (OPS is no multiple of 7) is closed by drain(), which must not hang or leave any behind.
    VerbsBandwidthBenchmark b = new VerbsBandwidthBenchmark();
    b.op = op;
    b.size = 64;
    b.depth = depth;
    b.crc = false;
    b.qps = qps;
    b.cqMod = cqMod;
    b.setUp();
    try {
      for (int iteration = 0; iteration < 2; iteration++) {
        for (int i = 0; i < OPS + 3; i++) {
          b.message();
        }
        b.drain();
      }
    } finally {
      b.tearDown();
    }
  }

  @Test
  void manyQueuePairs() throws Exception {
    VerbsBandwidthBenchmark b = new VerbsBandwidthBenchmark();
    b.op = "WRITE";
    b.size = 65536;
    b.depth = 1;
    b.crc = true;
    b.qps = 1000;
    b.setUp();
    try {
      for (int i = 0; i < 3000; i++) {
        b.message();
      }
      b.drain();
    } finally {
      b.tearDown();
    }
  }

  @ParameterizedTest(name = "{0} {1} B depth {2} conns {3}")
  @CsvSource({"PUSH, 64, 128, 1", "PUSH, 1048576, 4, 8", "PULL, 64, 1, 1",
      "PULL, 65536, 128, 2", "PULL, 1048576, 4, 1"})
  void nettyBandwidth(String mode, int size, int depth, int conns) throws Exception {
    NettyBandwidthBenchmark b = new NettyBandwidthBenchmark();
    b.mode = mode;
    b.size = size;
    b.depth = depth;
    b.conns = conns;
    b.setUp();
    try {
      for (int i = 0; i < OPS; i++) {
        b.message();
      }
      b.drain();
    } finally {
      b.tearDown();
    }
  }

  @ParameterizedTest(name = "{0} B")
  @CsvSource({"64", "4096", "1048576"})
  void nettyStream(int size) throws Exception {
    NettyStreamBenchmark b = new NettyStreamBenchmark();
    b.size = size;
    b.setUp();
    try {
      b.resync();
      for (int i = 0; i < OPS; i++) {
        b.message();
      }
    } finally {
      b.tearDown();
    }
  }

  @ParameterizedTest(name = "{0} {1} B crc {2}")
  @CsvSource({"SEND, 8, true", "SEND, 4096, false", "WRITE, 8, false", "WRITE, 4096, true"})
  void verbsLatency(String kind, int size, boolean crc) throws Exception {
    VerbsLatencyBenchmark b = new VerbsLatencyBenchmark();
    b.kind = kind;
    b.size = size;
    b.crc = crc;
    b.setUp();
    try {
      for (int i = 1; i <= OPS; i++) {
        if (b.roundTrip() != i) {
          throw new AssertionError("round trip " + i + " returned the wrong sequence number");
        }
      }
    } finally {
      b.tearDown();
    }
  }

  @ParameterizedTest(name = "{0} B crc {1} {2}")
  @CsvSource({"8, true, PARKED", "4096, false, BUSY_POLL"})
  void verbsLoopLatency(int size, boolean crc, String pollMode) throws Exception {
    VerbsLoopLatencyBenchmark b = new VerbsLoopLatencyBenchmark();
    b.size = size;
    b.crc = crc;
    b.pollMode = pollMode;
    b.setUp();
    try {
      for (int i = 1; i <= 3; i++) {
        if (b.roundTrips() != (long) i * VerbsLoopLatencyBenchmark.BATCH) {
          throw new AssertionError("batch " + i + " returned the wrong sequence number");
        }
      }
    } finally {
      b.tearDown();
    }
  }

  @ParameterizedTest(name = "{0} B {1} echo {2}")
  @CsvSource({"8, PARK, LOOP", "4096, SPIN, LOOP", "8, PARK, THREAD"})
  void nettyLatency(int size, String wait, String echo) throws Exception {
    NettyLatencyBenchmark b = new NettyLatencyBenchmark();
    b.size = size;
    b.wait = wait;
    b.echo = echo;
    b.setUp();
    try {
      for (int i = 1; i <= OPS; i++) {
        if (b.roundTrip() != i) {
          throw new AssertionError("round trip " + i + " returned the wrong sequence number");
        }
      }
    } finally {
      b.tearDown();
    }
  }

  @Test
  void nioStream() throws Exception {
    NioStreamBenchmark b = new NioStreamBenchmark();
    b.size = 65536;
    b.setUp();
    try {
      for (int i = 0; i < OPS; i++) {
        b.message();
      }
    } finally {
      b.tearDown();
    }
  }
}
