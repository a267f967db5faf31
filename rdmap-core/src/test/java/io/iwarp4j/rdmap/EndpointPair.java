package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.ddp.testing.FramedStream;
import io.iwarp4j.mpa.FpduDeframer;
import io.iwarp4j.mpa.FpduFramer;
import io.iwarp4j.testing.Inbound;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.function.IntUnaryOperator;

/**
 * Two RDMAP endpoints back to back over MPA framing in EmbeddedChannels, without an MPA startup
 * (the ddp-core StreamPair style): each end is a {@link FramedStream} (a channel holding an
 * {@link FpduDeframer}, an {@link FpduFramer} writing through the deframer's context and a
 * {@link DdpStream}) and an {@link RdmapEndpoint}, with a {@link TestTransport} first in the
 * pipeline as its socket. End A
 * is the MPA Initiator. {@link #shuttle()} runs both event loops' tasks and moves what each
 * transport took to the other end as inbound reads (chunked by {@link #chunker}), recording every
 * octet per direction; a closed channel closes its peer, as a FIN does without half-closure.
 */
final class EndpointPair implements AutoCloseable {
  /** How an end is built. */
  static final class Config {
    boolean crc = true;
    boolean markers = false;
    int mulpdu = 1024;
    int ird = 4;
    int ord = 4;
    int receiveBuffers = 8;
    int receivePieces = 4;
    boolean rfc7306 = true;
    /**
     * Set: the endpoint is told {@link #crc} and snapshots its Read Responses with CRC on,
     * charged here. Null: the endpoint is built without it, every Read Response zero-copy.
     */
    ReadResponseCopyBudget readResponseCopies;
  }

  /** One end. */
  static final class End {
    final String name;
    final EmbeddedChannel channel;
    final TestTransport transport = new TestTransport();
    final FpduDeframer deframer;
    final FpduFramer framer;
    final DdpStream stream;
    final RecordingEndpointListener events = new RecordingEndpointListener();
    final RdmapEndpoint endpoint;
    final ProtectionDomain pd;
    /** Every octet this end wrote, in order. */
    final ByteArrayOutputStream wire = new ByteArrayOutputStream();

    End(String name, Config config, boolean initiator, ProtectionDomain pd) {
      this.name = name;
      this.pd = pd;
      FramedStream end = FramedStream.builder().crc(config.crc)
          .markers(config.markers, config.markers).mulpdu(config.mulpdu).before(transport)
          .build(initiator, pd, null);
      channel = end.channel;
      deframer = end.deframer;
      framer = end.framer;
      stream = end.stream;
      endpoint = config.readResponseCopies == null
          ? new RdmapEndpoint(stream, events, config.ird, config.ord, config.receiveBuffers,
              config.receivePieces, config.rfc7306)
          : new RdmapEndpoint(stream, events, config.ird, config.ord, config.receiveBuffers,
              config.receivePieces, config.rfc7306, new RdmapCounters(), config.crc,
              config.readResponseCopies);
    }

    /** The octets this end wrote so far. */
    byte[] wireBytes() {
      return wire.toByteArray();
    }
  }

  final long seed;
  final StagTable table;
  final End a;
  final End b;
  /** Given the octets left to move, the size of the next read; whole by default. */
  IntUnaryOperator chunker = left -> left;
  /** Called with each direction's octets before they are delivered (to corrupt them). */
  WireTap tap = (from, octets) -> octets;

  /** Sees the octets of one move and returns what is delivered (to corrupt or drop them). */
  interface WireTap {
    byte[] onMove(End from, byte[] octets);
  }

  EndpointPair(long seed) {
    this(seed, new Config(), new Config());
  }

  EndpointPair(long seed, Config configA, Config configB) {
    this(seed, configA, configB, Duration.ofSeconds(10));
  }

  EndpointPair(long seed, Config configA, Config configB, Duration drainTimeout) {
    this.seed = seed;
    System.out.println("EndpointPair seed=" + seed);
    table = new StagTable(256, new SplittableRandom(seed), drainTimeout);
    a = new End("A", configA, true, table.newProtectionDomain());
    b = new End("B", configB, false, table.newProtectionDomain());
  }

  /** Starts both streams (post receive buffers first). */
  EndpointPair start() {
    a.endpoint.start();
    b.endpoint.start();
    return this;
  }

  /** The other end. */
  End peer(End e) {
    return e == a ? b : a;
  }

  /** Runs tasks and moves bytes (and closes) both ways until nothing moves any more. */
  EndpointPair shuttle() {
    int rounds = 0;
    boolean moved;
    do {
      a.channel.runPendingTasks();
      b.channel.runPendingTasks();
      moved = move(a, b);
      moved |= move(b, a);
      a.channel.runPendingTasks();
      b.channel.runPendingTasks();
      if (++rounds > 100_000) {
        throw new AssertionError("the pair never went quiet");
      }
    } while (moved);
    return this;
  }

  private boolean move(End from, End to) {
    byte[] octets = from.transport.drainTaken();
    from.wire.write(octets, 0, octets.length);
    boolean moved = octets.length > 0;
    octets = tap.onMove(from, octets);
    Inbound.feed(to.channel, octets, chunker);
    if (!from.channel.isOpen() && to.channel.isOpen()) {
      to.channel.close();
      moved = true;
    }
    return moved;
  }

  @Override
  public void close() {
    a.channel.finishAndReleaseAll();
    b.channel.finishAndReleaseAll();
  }
}
