package io.iwarp4j.examples.nvmeof.cli;

import io.iwarp4j.examples.nvmeof.host.HostOptions;
import io.iwarp4j.examples.nvmeof.host.HostQueue;
import io.iwarp4j.examples.nvmeof.host.NvmeHost;
import io.iwarp4j.examples.nvmeof.host.NvmeofException;
import io.iwarp4j.examples.nvmeof.server.NvmeTarget;
import io.iwarp4j.examples.nvmeof.server.TargetConfig;
import io.iwarp4j.examples.nvmeof.wire.IdentifyController;
import io.iwarp4j.examples.nvmeof.wire.IdentifyNamespace;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MpaSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * The example's command line: {@code serve} runs a target; {@code connect}, {@code identify},
 * {@code write}, {@code read}, {@code verify} and {@code bench} run a host against one. See
 * {@link #USAGE}.
 */
public final class NvmeofMain {
  /** The subsystem NQN when none is given. */
  public static final String DEFAULT_NQN = "nqn.2026-11.io.iwarp4j:nvmeof-example";
  /** NVMe/RDMA's IANA port. */
  public static final int DEFAULT_PORT = 4420;

  static final String USAGE = """
      usage: nvmeof serve [--port P] [--bind ADDR] [--size BYTES[K|M|G]] [--block 512|4096]
                          [--nqn NQN] [--no-crc]
             nvmeof connect  HOST PORT [options]
             nvmeof identify HOST PORT [options]
             nvmeof write    HOST PORT SLBA BLOCKS [--seed S] [options]
             nvmeof read     HOST PORT SLBA BLOCKS [options]
             nvmeof verify   HOST PORT SLBA BLOCKS [--seed S] [options]
             nvmeof exercise HOST PORT [--bytes 8M] [--idle 30] [--window 64M] [--seed S]
                             [options]
             nvmeof bench    HOST PORT [--seconds N] [--qd N] [--queues N] [options]
             nvmeof bench    --local [--size BYTES] [--seconds N] [--qd N] [--queues N] [options]
      host options: --nqn NQN  --kato MS  --pool (pre-registered buffers instead of per-I/O
                    registration)  --no-inline (no in-capsule writes)  --no-crc (MPA CRC off)
                    --first-fpdu-delay MS (quiet after each MPA Reply, default 50: siw's
                    accept race)
      write fills each block with a pattern of (seed, LBA); verify reads and compares it.
      exercise: --bytes of random data in writes of random length at random LBAs of the first
      --window octets, read back and compared, then --idle seconds with only Keep Alive and
      one more read-back; exits 1 on any mismatched octet or a lost association.
      bench: 4 KiB random reads, then 128 KiB sequential reads, each --seconds long (default 10)
      at --qd commands outstanding per queue (default 32); --local serves a namespace in-process.
      """;

  private NvmeofMain() {
  }

  /**
   * Runs a command.
   *
   * @param args the command and its arguments
   */
  public static void main(String[] args) {
    int status;
    try {
      status = run(args, System.out);
    } catch (NvmeofException | IllegalArgumentException e) {
      System.err.println("nvmeof: " + e.getMessage());
      status = 1;
    } catch (IOException e) {
      System.err.println("nvmeof: " + e);
      status = 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      status = 130;
    }
    System.exit(status);
  }

  /**
   * Runs a command, printing to {@code out}; {@code serve} returns only when interrupted.
   *
   * @return the exit status
   */
  public static int run(String[] args, PrintStream out) throws IOException, InterruptedException {
    List<String> positional = new ArrayList<>();
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.startsWith("--")) {
        String name = a.substring(2);
        boolean flag = switch (name) {
          case "no-crc", "pool", "no-inline", "local" -> true;
          default -> false;
        };
        if (flag) {
          opts.put(name, "true");
        } else if (i + 1 < args.length) {
          opts.put(name, args[++i]);
        } else {
          throw new IllegalArgumentException(a + " needs a value\n" + USAGE);
        }
      } else {
        positional.add(a);
      }
    }
    if (positional.isEmpty()) {
      out.print(USAGE);
      return 2;
    }
    String command = positional.get(0);
    DeviceConfig device = opts.containsKey("no-crc")
        ? DeviceConfig.builder().mpaSettings(MpaSettings.builder().crc(false).build()).build()
        : DeviceConfig.defaults();
    String nqn = opts.getOrDefault("nqn", DEFAULT_NQN);
    if (command.equals("serve")) {
      return serve(device, opts, nqn, out);
    }
    if (command.equals("bench") && opts.containsKey("local")) {
      TargetConfig config = targetConfig(opts, nqn, "256M");
      try (NvmeTarget target = NvmeTarget.start(device,
          new InetSocketAddress("127.0.0.1", 0), config)) {
        out.printf("in-process target on %s, %d MiB namespace%n", target.address(),
            config.namespaceBytes() >> 20);
        return host(command, device, target.address(), positional, opts, nqn, out);
      }
    }
    if (positional.size() < 3) {
      throw new IllegalArgumentException(command + " needs HOST and PORT\n" + USAGE);
    }
    InetSocketAddress address = new InetSocketAddress(positional.get(1),
        Integer.parseInt(positional.get(2)));
    return host(command, device, address, positional, opts, nqn, out);
  }

  private static TargetConfig targetConfig(Map<String, String> opts, String nqn, String size) {
    return TargetConfig.of(nqn, parseSize(opts.getOrDefault("size", size)))
        .withBlockSize(Integer.parseInt(opts.getOrDefault("block", "512")));
  }

  private static int serve(DeviceConfig device, Map<String, String> opts, String nqn,
      PrintStream out) throws IOException, InterruptedException {
    TargetConfig config = targetConfig(opts, nqn, "64M");
    int port = Integer.parseInt(opts.getOrDefault("port", Integer.toString(DEFAULT_PORT)));
    String bind = opts.getOrDefault("bind", "0.0.0.0");
    CountDownLatch stop = new CountDownLatch(1);
    try (NvmeTarget target = NvmeTarget.start(device, new InetSocketAddress(bind, port), config)) {
      out.printf("nvmeof target listening on port %d: %s, namespace 1 of %d blocks of %d octets"
          + "%n", target.address().getPort(), nqn, config.namespaceBytes() / config.blockSize(),
          config.blockSize());
      out.flush();
      Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
      stop.await();
    }
    return 0;
  }

  private static int host(String command, DeviceConfig device, InetSocketAddress address,
      List<String> positional, Map<String, String> opts, String nqn, PrintStream out)
      throws InterruptedException {
    HostOptions options = HostOptions.of(nqn)
        .withKeepAlive(Integer.parseInt(opts.getOrDefault("kato", "5000")), true)
        .withIoQueues(Integer.parseInt(opts.getOrDefault("queues", "1")))
        .withQueueEntries(Integer.parseInt(opts.getOrDefault("qd", "32")))
        .withPerIoRegistration(!opts.containsKey("pool"))
        .withInCapsuleWrites(!opts.containsKey("no-inline"))
        .withFirstFpduDelay(Integer.parseInt(opts.getOrDefault("first-fpdu-delay",
            Integer.toString(HostOptions.DEFAULT_FIRST_FPDU_DELAY_MILLIS))));
    int exercised = -1;
    NvmeHost closed;
    try (NvmeHost host = NvmeHost.connect(device, address, options)) {
      closed = host;
      IdentifyNamespace ns = host.namespace();
      switch (command) {
        case "connect" -> out.printf("connected to %s at %s: controller %d, %d I/O queue(s) of %d"
            + " entries, namespace 1: %d blocks of %d octets%n", nqn, address, host.cntlid(),
            host.ioQueueCount(), options.queueEntries(), ns.size(), ns.blockSize());
        case "identify" -> identify(host, out);
        case "write", "read", "verify" -> {
          if (positional.size() < 5) {
            throw new IllegalArgumentException(command + " needs SLBA and BLOCKS\n" + USAGE);
          }
          long slba = Long.parseLong(positional.get(3));
          long blocks = Long.parseLong(positional.get(4));
          long seed = Long.parseLong(opts.getOrDefault("seed", "1"));
          return transfer(command, host, slba, blocks, seed, out);
        }
        case "exercise" -> {
          identify(host, out);
          exercised = new Exercise(host, parseSize(opts.getOrDefault("window", "64M")), out)
              .run(parseSize(opts.getOrDefault("bytes", "8M")),
                  Long.parseLong(opts.getOrDefault("seed", "1")),
                  Integer.parseInt(opts.getOrDefault("idle", "30")));
        }
        case "bench" -> bench(host, Integer.parseInt(opts.getOrDefault("seconds", "10")), out);
        default -> throw new IllegalArgumentException("unknown command " + command + "\n" + USAGE);
      }
    }
    if (exercised >= 0) {
      // After close: the controller's shutdown acknowledged, every work request completed.
      boolean clean = closed.shutdownCompleted() && closed.outstandingWorkRequests() == 0;
      out.printf("disconnected: shutdown %s, %d work requests outstanding%n",
          closed.shutdownCompleted() ? "complete (CSTS.SHST)" : "NOT acknowledged",
          closed.outstandingWorkRequests());
      return clean ? exercised : 1;
    }
    return 0;
  }

  private static void identify(NvmeHost host, PrintStream out) {
    IdentifyController c = host.controller();
    IdentifyNamespace ns = host.namespace();
    out.printf("controller %d: model \"%s\", serial \"%s\", firmware \"%s\", NVMe %d.%d%n",
        c.cntlid(), c.model(), c.serial(), c.firmware(), c.version() >>> 16,
        (c.version() >>> 8) & 0xFF);
    out.printf("  subsystem %s, %d namespace(s), MDTS %d (%d KiB), MAXCMD %d, KAS %d x 100 ms%n",
        c.subNqn(), c.namespaces(), c.mdts(), c.maxTransferBytes() >> 10, c.maxCommands(),
        c.keepAliveGranularity100ms());
    out.printf("  SGLS 0x%08x, IOCCSZ %d (%d octets in-capsule), IORCSZ %d, ICDOFF %d%n",
        c.sgls(), c.ioccsz(), c.inCapsuleDataSize(), c.iorcsz(), c.icdoff());
    out.printf("namespace 1: NSZE %d, NCAP %d, LBA format %d: %d octets, %d MiB%n", ns.size(),
        ns.capacity(), ns.formatIndex(), ns.blockSize(), (ns.size() * ns.blockSize()) >> 20);
  }

  /** Block {@code lba}'s pattern: a function of (seed, LBA) only, so ranges check independently. */
  static void pattern(long seed, long lba, byte[] into, int off, int blockSize) {
    SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + lba);
    for (int i = 0; i < blockSize; i += 8) {
      long v = r.nextLong();
      for (int k = 0; k < 8; k++) {
        into[off + i + k] = (byte) (v >>> (8 * k));
      }
    }
  }

  private static int transfer(String command, NvmeHost host, long slba, long blocks, long seed,
      PrintStream out) {
    int bs = host.namespace().blockSize();
    int per = host.maxIoBytes() / bs;
    byte[] buf = new byte[per * bs];
    byte[] expected = new byte[per * bs];
    CRC32C crc = new CRC32C();
    long mismatchedBlocks = 0;
    long firstBad = -1;
    for (long lba = slba; lba < slba + blocks; lba += per) {
      int n = (int) Math.min(per, slba + blocks - lba);
      if (command.equals("write")) {
        for (int b = 0; b < n; b++) {
          pattern(seed, lba + b, buf, b * bs, bs);
        }
        host.write(lba, n, buf, 0);
      } else {
        host.read(lba, n, buf, 0);
        crc.update(buf, 0, n * bs);
        if (command.equals("verify")) {
          for (int b = 0; b < n; b++) {
            pattern(seed, lba + b, expected, b * bs, bs);
            if (!java.util.Arrays.equals(buf, b * bs, (b + 1) * bs, expected, b * bs,
                (b + 1) * bs)) {
              mismatchedBlocks++;
              firstBad = firstBad < 0 ? lba + b : firstBad;
            }
          }
        }
      }
    }
    switch (command) {
      case "write" -> out.printf("wrote %d blocks at LBA %d (pattern seed %d)%n", blocks, slba, seed);
      case "read" -> out.printf("read %d blocks at LBA %d: CRC32C %08x%n", blocks, slba,
          crc.getValue());
      default -> {
        out.printf("verified %d blocks at LBA %d (seed %d): %d mismatched%s%n", blocks, slba,
            seed, mismatchedBlocks, firstBad < 0 ? "" : ", first at LBA " + firstBad);
        return mismatchedBlocks == 0 ? 0 : 1;
      }
    }
    return 0;
  }

  private static void bench(NvmeHost host, int seconds, PrintStream out)
      throws InterruptedException {
    out.println("machine: " + machine());
    run(host, "4 KiB random read", 4096, true, seconds, out);
    run(host, "128 KiB sequential read", Math.min(128 * 1024, host.maxIoBytes()), false, seconds,
        out);
  }

  // One submitting thread per queue keeps every slot busy: acquire() waits for a free one.
  private static void run(NvmeHost host, String name, int bytes, boolean random, int seconds,
      PrintStream out) throws InterruptedException {
    int bs = host.namespace().blockSize();
    int blocks = Math.max(1, bytes / bs);
    long nsBlocks = host.namespace().size();
    long span = nsBlocks / blocks;
    AtomicLong done = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    List<Thread> threads = new ArrayList<>();
    long start = System.nanoTime();
    for (int qi = 0; qi < host.ioQueueCount(); qi++) {
      HostQueue q = host.ioQueue(qi);
      long first = qi * (span / host.ioQueueCount());
      Thread t = new Thread(() -> {
        SplittableRandom r = new SplittableRandom(q.qid());
        long next = first;
        while (System.nanoTime() < end && q.isConnected()) {
          long lba = (random ? r.nextLong(span) : next++ % span) * blocks;
          q.readAsync(1, lba, blocks, bs, (status, result, data) -> {
            if (status == 0) {
              done.incrementAndGet();
            } else {
              failed.incrementAndGet();
            }
          });
        }
        // Wait for the queue to drain: every slot free again.
        int[] slots = new int[q.entries()];
        for (int i = 0; i < slots.length; i++) {
          slots[i] = q.acquire();
        }
        for (int s : slots) {
          q.release(s);
        }
      }, "nvmeof-bench-" + qi);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    double secs = (System.nanoTime() - start) / 1e9;
    long n = done.get();
    out.printf(Locale.ROOT, "%-24s %d queue(s) x QD %d: %,.0f IOPS, %,.1f MB/s (%d commands in"
        + " %.1f s, %d failed)%n", name, host.ioQueueCount(), host.ioQueue(0).entries(),
        n / secs, n * (double) blocks * bs / secs / 1e6, n, secs, failed.get());
  }

  static String machine() {
    String model = "unknown CPU";
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          model = line.substring(line.indexOf(':') + 1).trim();
          break;
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: the model stays unknown
    }
    return model + ", " + Runtime.getRuntime().availableProcessors() + " CPUs, Java "
        + Runtime.version();
  }

  private static long parseSize(String s) {
    String t = s.trim().toUpperCase(Locale.ROOT);
    long unit = 1;
    if (t.endsWith("K")) {
      unit = 1L << 10;
    } else if (t.endsWith("M")) {
      unit = 1L << 20;
    } else if (t.endsWith("G")) {
      unit = 1L << 30;
    }
    if (unit != 1) {
      t = t.substring(0, t.length() - 1);
    }
    return Long.parseLong(t) * unit;
  }
}
