package io.iwarp4j.examples.nvmeof.cli;

import io.iwarp4j.examples.nvmeof.host.NvmeHost;
import java.io.PrintStream;
import java.util.BitSet;
import java.util.SplittableRandom;

/**
 * The {@code exercise} command (issue 21's acceptance 1 against any target): random data in
 * writes of random length at random LBAs, kept in a model of the namespace's first
 * {@code window} octets, read back in full and compared; then an idle period in which only Keep
 * Alive runs, and one more read-back to show the association outlived it.
 */
final class Exercise {
  private final NvmeHost host;
  private final PrintStream out;
  private final int bs;
  private final long windowBlocks;
  private final byte[] model;
  private final BitSet written;

  Exercise(NvmeHost host, long windowBytes, PrintStream out) {
    this.host = host;
    this.out = out;
    this.bs = host.namespace().blockSize();
    long nsBlocks = host.namespace().size();
    this.windowBlocks = Math.min(nsBlocks, windowBytes / bs);
    if (windowBlocks * bs > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("--window must be below 2 GiB");
    }
    this.model = new byte[(int) (windowBlocks * bs)];
    this.written = new BitSet((int) windowBlocks);
  }

  /**
   * Runs it.
   *
   * @return 0 when every octet read back matched and Keep Alive kept the association, else 1
   */
  int run(long totalBytes, long seed, int idleSeconds) throws InterruptedException {
    SplittableRandom r = new SplittableRandom(seed);
    int maxBlocks = host.maxIoBytes() / bs;
    byte[] buf = new byte[maxBlocks * bs];
    long bytes = 0;
    int writes = 0;
    long t0 = System.nanoTime();
    while (bytes < totalBytes) {
      int n = (int) Math.min(1 + r.nextInt(maxBlocks), (totalBytes - bytes + bs - 1) / bs);
      n = (int) Math.min(n, windowBlocks);
      long lba = r.nextLong(windowBlocks - n + 1);
      r.nextBytes(buf);
      host.write(lba, n, buf, 0);
      System.arraycopy(buf, 0, model, (int) (lba * bs), n * bs);
      written.set((int) lba, (int) lba + n);
      bytes += (long) n * bs;
      writes++;
    }
    double writeSecs = (System.nanoTime() - t0) / 1e9;
    out.printf("wrote %d octets of random data in %d writes of 1 to %d blocks at random LBAs"
        + " below %d (%.1f s)%n", bytes, writes, maxBlocks, windowBlocks, writeSecs);
    long t1 = System.nanoTime();
    long mismatched = readBack(buf);
    out.printf("read back %d written blocks: %d mismatched octets (%.1f s)%n",
        written.cardinality(), mismatched, (System.nanoTime() - t1) / 1e9);
    long kaBefore = host.keepAlivesCompleted();
    if (idleSeconds > 0) {
      Thread.sleep(idleSeconds * 1000L);
      long kaDuring = host.keepAlivesCompleted() - kaBefore;
      out.printf("idle %d s: %d Keep Alive completed, %d failed, association %s%n", idleSeconds,
          kaDuring, host.keepAlivesFailed(), host.isConnected() ? "connected" : "LOST");
      if (!host.isConnected() || kaDuring == 0 || host.keepAlivesFailed() != 0) {
        return 1;
      }
      long after = readBack(buf);
      out.printf("read back after the idle period: %d mismatched octets%n", after);
      mismatched += after;
    }
    return mismatched == 0 ? 0 : 1;
  }

  private long readBack(byte[] buf) {
    int maxBlocks = host.maxIoBytes() / bs;
    long mismatched = 0;
    for (int lba = written.nextSetBit(0); lba >= 0; ) {
      int end = written.nextClearBit(lba);
      int n = Math.min(end - lba, maxBlocks);
      host.read(lba, n, buf, 0);
      int base = lba * bs;
      for (int i = 0; i < n * bs; i++) {
        if (buf[i] != model[base + i]) {
          mismatched++;
        }
      }
      lba = written.nextSetBit(lba + n);
    }
    return mismatched;
  }
}
