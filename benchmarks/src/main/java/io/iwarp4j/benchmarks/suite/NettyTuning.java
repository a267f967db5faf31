package io.iwarp4j.benchmarks.suite;

/**
 * Netty settings every fork of the suite runs with, iwarp4j and the raw-Netty baseline alike.
 */
final class NettyTuning {
  /**
   * Netty's Recycler keeps up to {@code chunkSize} (default 32) recycled objects per thread in a
   * batch and spills the rest into a chunked queue that allocates a new chunk every 32 objects.
   * One flush of a deep batch recycles hundreds of outbound entries and buffers at once, so with
   * the default every message pays some octets for chunks (15-25 B per iwarp4j operation, a few
   * per baseline message). A batch larger than the burst allocates nothing.
   */
  static final String RECYCLER_BATCH = "-Dio.netty.recycler.chunkSize=1024";

  /**
   * Netty's leak detector stays on (SIMPLE, its default, so the suite still fails on a leak) but
   * samples one buffer in 4096 instead of one in 128. Every sampled buffer records a stack trace
   * of a few KiB; at 1 in 128 that alone is ~23 B per 64-octet message in
   * {@code gc.alloc.rate.norm}, on both sides, which would hide what the data paths allocate.
   * Over the millions of buffers of a fork a leaking path is still sampled many times.
   */
  static final String LEAK_SAMPLING = "-Dio.netty.leakDetection.samplingInterval=4096";

  private NettyTuning() {
  }
}
