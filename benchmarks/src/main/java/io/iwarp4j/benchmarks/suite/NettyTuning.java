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

  private NettyTuning() {
  }
}
