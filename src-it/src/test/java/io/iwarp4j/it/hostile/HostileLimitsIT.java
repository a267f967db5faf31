package io.iwarp4j.it.hostile;

import static io.iwarp4j.it.hostile.HostilePeer.TAGGED_LAST;
import static io.iwarp4j.it.hostile.HostilePeer.UNTAGGED_LAST;
import static io.iwarp4j.it.hostile.HostilePeer.rdmap;
import static io.iwarp4j.it.hostile.HostilePeer.readRequest;
import static io.iwarp4j.it.hostile.HostilePeer.tagged;
import static io.iwarp4j.it.hostile.HostilePeer.untagged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.TerminateMessage;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Inbound resource limits a hostile peer runs into, end to end over 127.0.0.1.
 */
@Timeout(600)
class HostileLimitsIT {
  private static final long T = 10;
  private static final int IRD = 4;
  private static final int MIB = 1 << 20;
  private static final int READS = 64;
  private static final int REPEAT = Integer.getInteger("fault.repeat", 3);

  private RdmaDevice device;
  private ProtectionDomain pd;
  private CompletionQueue cq;
  private MemoryRegion source;
  private RdmaListener listener;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
  private final BlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();

  @BeforeEach
  void setUp() throws Exception {
    device = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build());
    pd = device.allocateProtectionDomain();
    cq = device.createCompletionQueue(16);
    source = pd.allocate(MIB, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ
        | AccessFlags.REMOTE_WRITE);
    listener = device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
  }

  @AfterEach
  void tearDown() {
    device.close();
  }

  /**
   * IRD is enforced: the peer sends {@value #READS} Read Requests of 1 MiB each in one burst
   * without reading the responses, to a queue pair with IRD {@value #IRD}. Responses cannot all
   * leave, so the device must refuse a Read Request beyond IRD with the Terminate DDP 1/2/0x02
   * (RFC 5040 §6.1: no QN 1 buffer), never queue 64 MiB of responses.
   */
  @Test
  void readRequestsBeyondIrdEndInATerminate() throws Exception {
    MemorySample cold = MemorySample.take();
    MemorySample warm = cold;
    for (int round = 0; round < REPEAT; round++) {
      readRequestsBeyondIrdOnce();
      if (round == 0) {
        warm = MemorySample.take();
      }
    }
    // Generous bounds: 64 x 1 MiB requested per round, so a leak of the responses would show.
    MemorySample.assertBounded("Read-Request flood x" + REPEAT, cold, warm, MemorySample.take(),
        32, 32);
  }

  private void readRequestsBeyondIrdOnce() throws Exception {
    events.clear();
    try (HostilePeer peer = new HostilePeer(listener.localAddress())) {
      peer.sendRequest();
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "no connect request");
      QueuePair qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq)
          .maxSendWr(4).maxRecvWr(4).ird(IRD).ord(IRD).build());
      request.accept(qp, AcceptParams.builder().eventListener(events::add).build());
      peer.readReply();
      ByteArrayOutputStream burst = new ByteArrayOutputStream();
      burst.write(HostilePeer.fpdu(tagged(TAGGED_LAST, rdmap(0), source.stag(),
          source.address(), new byte[0]), false));
      for (int i = 0; i < READS; i++) {
        burst.write(HostilePeer.fpdu(untagged(UNTAGGED_LAST, rdmap(1), 0, 1, i + 1, 0,
            readRequest(0x1000 + i, 0, MIB, source.stag(), source.address())), false));
      }
      peer.writeRaw(burst.toByteArray());

      // Read Responses first (tagged), then the Terminate. The device still holds unread
      // octets of the burst when it terminates; its graceful close (FIN, then drain until our
      // close: TerminateClose) must deliver the Terminate, never a RST in its place.
      checkTerminateAfterResponses(peer);
    }
    ConnectionEvent e;
    do {
      e = events.poll(T, TimeUnit.SECONDS);
      assertNotNull(e, "no ERROR event");
    } while (e.type() != ConnectionEventType.ERROR);
    assertEquals(new TerminateInfo(1, 2, 2, false), e.terminate());
    do {
      e = events.poll(T, TimeUnit.SECONDS);
      assertNotNull(e, "no DISCONNECTED event after the ERROR");
    } while (e.type() != ConnectionEventType.DISCONNECTED);
  }

  /**
   * {@link DeviceConfig#maxConnections()} is distinct from the queue-pair limit: with a limit
   * of 2 connections and none of them holding a queue pair yet (both still waiting for the
   * application's decision on their MPA Request), a third TCP connection is closed by the
   * device before it reads anything (the client sees end of stream, or a reset when its
   * Request was already in the device's socket), no ConnectRequest reaches the application, and
   * an outbound connect is refused with an exception naming the limit. Once one of the two
   * closes, a new client is served again.
   */
  @Test
  void connectionsBeyondMaxConnectionsAreRefused() throws Exception {
    BlockingQueue<ConnectRequest> limited = new LinkedBlockingQueue<>();
    RdmaDevice small = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1)
        .maxConnections(2).maxQueuePairs(16).build());
    try {
      RdmaListener l = small.listen(new InetSocketAddress("127.0.0.1", 0), limited::add);
      for (int round = 0; round < REPEAT; round++) {
        HostilePeer first = admitted(l, limited);
        try (HostilePeer second = admitted(l, limited)) {
          try (HostilePeer third = new HostilePeer(l.localAddress())) {
            try {
              third.sendRequest();
            } catch (java.io.IOException refusedAlready) {
              // the device closed it before the Request was written
            }
            assertTrue(third.closedByDevice(), "the third connection was not refused");
          }
          assertEquals(null, limited.poll(200, TimeUnit.MILLISECONDS),
              "a ConnectRequest beyond the limit");
          QueuePair qp = small.createQueuePair(small.allocateProtectionDomain(),
              QueuePairConfig.builder(small.createCompletionQueue(4),
                  small.createCompletionQueue(4)).build());
          IllegalStateException refused = org.junit.jupiter.api.Assertions.assertThrows(
              IllegalStateException.class,
              () -> small.connect(qp, (InetSocketAddress) l.localAddress()));
          assertTrue(refused.getMessage().contains("maxConnections"), refused.getMessage());
          qp.close();
          // One closes: its slot is released once the device has seen the close.
          first.close();
          admitted(l, limited).close();
        }
      }
    } finally {
      small.close();
    }
  }

  /**
   * A raw client whose MPA Request reached the application, retrying (bounded) while the device
   * refuses it because connections closed by earlier steps are not yet released.
   */
  private static HostilePeer admitted(RdmaListener l, BlockingQueue<ConnectRequest> requests)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
    for (;;) {
      assertTrue(System.nanoTime() < deadline, "no connection admitted within " + T + " s");
      HostilePeer peer = new HostilePeer(l.localAddress());
      try {
        peer.sendRequest();
        if (requests.poll(2, TimeUnit.SECONDS) != null) {
          return peer;
        }
      } catch (java.io.IOException refused) {
        // refused: the limit is still reached
      }
      peer.close();
      Thread.sleep(50);
    }
  }

  private static void checkTerminateAfterResponses(HostilePeer peer) throws Exception {
    long responseOctets = 0;
    byte[] ulpdu;
    while ((ulpdu = peer.readFpdu()) != null && (ulpdu[0] & 0x80) != 0) {
      responseOctets += ulpdu.length - TaggedHeader.LENGTH;
    }
    assertNotNull(ulpdu, "the device closed without a Terminate after " + responseOctets
        + " response octets");
    TerminateMessage t = new TerminateMessage().wrap(Unpooled.wrappedBuffer(ulpdu), 0,
        ulpdu.length);
    assertEquals(0x47, ulpdu[1] & 0xFF, "a Terminate");
    assertEquals(0x01_02_02, t.layer() << 16 | t.errorType() << 8 | t.errorCode(),
        "DDP 1/2/0x02 (no QN 1 buffer)");
    int terminatedMsn = java.nio.ByteBuffer.wrap(ulpdu,
        TerminateMessage.TERMINATED_DDP_HEADER_OFFSET + 10, 4).getInt();
    assertTrue(terminatedMsn > IRD && terminatedMsn <= READS,
        "the refused Read Request has MSN " + terminatedMsn);
    // Only the Reads accepted before the refusal were answered; the rest were never queued.
    assertTrue(responseOctets <= (long) (terminatedMsn - 1) * MIB,
        responseOctets + " response octets for " + (terminatedMsn - 1) + " accepted Reads");
    assertTrue(peer.closedByDevice(), "the device sent more after its Terminate");
  }
}
