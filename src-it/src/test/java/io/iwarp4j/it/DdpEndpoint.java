package io.iwarp4j.it;

import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.ddp.testing.RecordingStreamListener;
import io.iwarp4j.mpa.MpaConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One end of a DDP integration test over a real MPA connection: its own {@link StagTable} and
 * {@link ProtectionDomain}, registered regions (a sink the peer writes into, a region for posted
 * receive buffers, two source regions filled with seeded octets), a {@link DdpStream} and a
 * {@link Recorder} of everything the stream hands up.
 *
 * <p>Regions are allocated on the calling thread; the stream is created, set up and started on
 * the connection's event loop. {@link #close()} deregisters the regions: call it only once the
 * channel is closed, so no send still reads from them.
 */
final class DdpEndpoint implements AutoCloseable {
  /** Every wait for the event loop or for an event. */
  static final long TIMEOUT_SECONDS = 10;

  static final int SINK_LENGTH = 256 * 1024;
  static final int RECV_LENGTH = 128 * 1024;
  static final int SRC_A_LENGTH = 150_000;
  static final int SRC_B_LENGTH = 100_000;

  final String name;
  final MpaConnection connection;
  final StagTable table;
  final ProtectionDomain pd;
  /** LOCAL_WRITE | REMOTE_WRITE: where the peer's RDMA Writes land. */
  final MemoryRegion sink;
  /** LOCAL_WRITE: the posted receive buffers. */
  final MemoryRegion recv;
  /** What this end sends from: region A and region B, and copies of their octets. */
  final MemoryRegion srcA;
  final MemoryRegion srcB;
  final byte[] srcAData;
  final byte[] srcBData;
  final Recorder events = new Recorder();
  private final List<MemoryRegion> regions = new ArrayList<>();
  private DdpStream stream;

  private DdpEndpoint(String name, MpaConnection connection, long seed) {
    this.name = name;
    this.connection = connection;
    this.table = new StagTable(16, new SplittableRandom(seed), Duration.ofSeconds(5));
    this.pd = table.newProtectionDomain();
    try {
      sink = allocate(SINK_LENGTH, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
      recv = allocate(RECV_LENGTH, AccessFlags.LOCAL_WRITE);
      srcA = allocate(SRC_A_LENGTH, AccessFlags.LOCAL_WRITE);
      srcB = allocate(SRC_B_LENGTH, AccessFlags.LOCAL_WRITE);
      SplittableRandom random = new SplittableRandom(seed * 31 + 7);
      srcAData = fill(srcA, random);
      srcBData = fill(srcB, random);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Allocates the regions, then on the event loop creates the stream, lets {@code setUp} enable
   * queues and post buffers, and starts it.
   */
  static DdpEndpoint open(String name, MpaConnection connection, long seed,
      Consumer<DdpEndpoint> setUp) throws Exception {
    DdpEndpoint e = new DdpEndpoint(name, connection, seed);
    try {
      e.call(() -> {
        e.stream = new DdpStream(connection, e.pd, e.events);
        setUp.accept(e);
        e.stream.start();
        return null;
      });
    } catch (Exception | Error ex) {
      e.close();
      throw ex;
    }
    return e;
  }

  private MemoryRegion allocate(int length, int access) {
    MemoryRegion r = pd.allocate(length, access);
    regions.add(r);
    return r;
  }

  private static byte[] fill(MemoryRegion r, SplittableRandom random) {
    byte[] data = new byte[r.length()];
    random.nextBytes(data);
    r.buffer().setBytes(0, data);
    return data;
  }

  /** The stream: event loop only. */
  DdpStream stream() {
    return stream;
  }

  /** Runs {@code task} on the connection's event loop and waits for its result. */
  <T> T call(Callable<T> task) throws Exception {
    return connection.channel().eventLoop().submit(task).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  /** The whole content of a region, for comparing with what should have landed there. */
  static byte[] contentOf(MemoryRegion r) {
    byte[] b = new byte[r.length()];
    r.buffer().getBytes(0, b);
    return b;
  }

  /** Deregisters every region and closes the domain. Idempotent. */
  @Override
  public void close() {
    for (MemoryRegion r : regions) {
      r.close();
    }
    pd.close();
  }

  @Override
  public String toString() {
    return name;
  }

  // ---- what the stream hands up ----

  /**
   * Queues every upcall of the stream (on the event loop), as ddp-core's
   * {@link RecordingStreamListener} records it, for the test thread. The access policy is RDMAP's:
   * an RDMA Write needs REMOTE_WRITE, a Read Response LOCAL_WRITE, every other opcode may not
   * travel tagged.
   */
  static final class Recorder extends RecordingStreamListener {
    private final BlockingQueue<Object> queue;

    Recorder() {
      this(new LinkedBlockingQueue<>());
    }

    private Recorder(BlockingQueue<Object> queue) {
      super(queue::add);
      this.queue = queue;
    }

    /** The next {@code n} events, in order; fails when they do not come in time. */
    List<Object> take(int n) throws InterruptedException {
      List<Object> out = new ArrayList<>(n);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
      while (out.size() < n) {
        Object e = queue.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        if (e == null) {
          throw new AssertionError("only " + out.size() + " of " + n + " events came: " + out);
        }
        out.add(e);
      }
      return out;
    }

    /** The events queued so far, without waiting. */
    List<Object> pending() {
      List<Object> out = new ArrayList<>();
      queue.drainTo(out);
      return out;
    }
  }
}
