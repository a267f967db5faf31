package io.iwarp4j.benchmarks;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one core's CRC32C costs: the JDK's {@link CRC32C} (the HotSpot intrinsic, the CPU's
 * crc32 instruction) over a direct buffer, as MPA feeds it, and over a heap array. One operation
 * checksums {@code size} octets; octets per second = ops/s × size. This bounds the Write
 * bandwidth with CRC on: both ends checksum every octet (docs/benchmarks.md).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class Crc32cBenchmark {
  /** Octets per update: one loopback FPDU's ULPDU (~32 KiB), and a 64 KiB message. */
  @Param({"32768", "65536"})
  public int size;

  private final CRC32C crc = new CRC32C();
  private ByteBuffer direct;
  private byte[] heap;

  /** Fills both buffers with octets that are not all zero. */
  @Setup
  public void setUp() {
    direct = ByteBuffer.allocateDirect(size);
    heap = new byte[size];
    for (int i = 0; i < size; i++) {
      heap[i] = (byte) (i * 31 + 7);
      direct.put(i, heap[i]);
    }
  }

  /** CRC32C over a direct buffer (how the framer and deframer feed it). */
  @Benchmark
  public long directBuffer() {
    crc.reset();
    direct.clear();
    crc.update(direct);
    return crc.getValue();
  }

  /** CRC32C over a heap array. */
  @Benchmark
  public long heapArray() {
    crc.reset();
    crc.update(heap, 0, size);
    return crc.getValue();
  }
}
