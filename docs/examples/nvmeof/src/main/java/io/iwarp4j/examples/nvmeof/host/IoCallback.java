package io.iwarp4j.examples.nvmeof.host;

import java.nio.ByteBuffer;

/** Told of a command's end, on the queue's event loop: it must not block. */
@FunctionalInterface
public interface IoCallback {
  /**
   * The command ended.
   *
   * @param status the NVMe status ({@code NvmeStatus}), or -1 if the queue was lost first
   * @param result the completion's command specific result
   * @param data the command's data buffer (a Read's data), valid only during the call
   */
  void onComplete(int status, long result, ByteBuffer data);
}
