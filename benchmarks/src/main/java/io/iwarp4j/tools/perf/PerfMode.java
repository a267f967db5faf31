package io.iwarp4j.tools.perf;

import java.util.Locale;

/** The tests iwarp-perf runs, named after perftest's binaries without the {@code ib_} prefix. */
public enum PerfMode {
  /** {@code ib_write_bw}: RDMA Write bandwidth. */
  WRITE_BW("RDMA_Write BW Test", false, false),
  /** {@code ib_read_bw}: RDMA Read bandwidth. */
  READ_BW("RDMA_Read BW Test", false, true),
  /** {@code ib_send_bw}: Send/Receive bandwidth. */
  SEND_BW("Send BW Test", false, false),
  /** {@code ib_write_lat}: RDMA Write ping-pong latency. */
  WRITE_LAT("RDMA_Write Latency Test", true, false),
  /** {@code ib_send_lat}: Send/Receive ping-pong latency. */
  SEND_LAT("Send Latency Test", true, false),
  /** {@code ib_atomic_bw}: RFC 7306 Atomic Fetch-and-Add bandwidth. */
  ATOMIC_BW("Atomic FETCH_AND_ADD BW Test", false, true);

  private final String title;
  private final boolean latency;
  private final boolean usesReads;

  PerfMode(String title, boolean latency, boolean usesReads) {
    this.title = title;
    this.latency = latency;
    this.usesReads = usesReads;
  }

  /**
   * The title perftest prints in its header block.
   *
   * @return the title
   */
  public String title() {
    return title;
  }

  /**
   * Whether this is a ping-pong latency test.
   *
   * @return true for the {@code _lat} tests
   */
  public boolean isLatency() {
    return latency;
  }

  /**
   * Whether the test needs IRD/ORD (RDMA Read and Atomics; perftest then sets
   * {@code responder_resources} and {@code initiator_depth} to {@code out_reads}).
   *
   * @return true for read_bw and atomic_bw
   */
  public boolean usesReads() {
    return usesReads;
  }

  /**
   * The command-line name, e.g. {@code write_bw}.
   *
   * @return the name
   */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Looks a mode up by its command-line name, with or without perftest's {@code ib_} prefix.
   *
   * @param name e.g. {@code write_bw} or {@code ib_write_bw}
   * @return the mode, or null when unknown
   */
  public static PerfMode fromCli(String name) {
    String n = name.startsWith("ib_") ? name.substring(3) : name;
    for (PerfMode m : values()) {
      if (m.cliName().equals(n)) {
        return m;
      }
    }
    return null;
  }
}
