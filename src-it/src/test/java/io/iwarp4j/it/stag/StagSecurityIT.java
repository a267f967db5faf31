package io.iwarp4j.it.stag;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
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
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * End to end over TCP on 127.0.0.1: a peer that kept the STag of a region the server deregistered
 * cannot reach the region that re-registration put in the same STag table slot. The server's
 * device has room for {@value #REGIONS} regions only, so the slot must come back; the client's
 * RDMA Write with the stale STag (and the new region's address) draws DDP Terminate 1/1/0x00
 * (tagged buffer, invalid STag) from the server, reported to the client as an ERROR connection
 * event with that Terminate, and not one octet of the new region changes.
 */
@Timeout(60)
class StagSecurityIT {
  private static final int REGIONS = 2;
  private static final int LIVE = 64;
  private static final int SIZE = 4096;
  private static final long WAIT = 30;
  private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_READ;

  @Test
  void aStaleStagIsRefusedAfterTheSlotWasReRegistered() throws Exception {
    try (RdmaDevice server = RdmaDevice.open(DeviceConfig.builder().maxMemoryRegions(REGIONS)
            .build());
        RdmaDevice client = RdmaDevice.open()) {
      ProtectionDomain spd = server.allocateProtectionDomain();
      CompletionQueue scq = server.createCompletionQueue(16);
      MemoryRegion victim = spd.allocate(SIZE, ALL);
      MemoryRegion other = spd.allocate(SIZE, ALL);
      QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq).build());
      ProtectionDomain cpd = client.allocateProtectionDomain();
      CompletionQueue ccq = client.createCompletionQueue(16);
      MemoryRegion src = cpd.allocate(SIZE, ALL);
      src.buffer().setBytes(0, pattern(1, SIZE));
      QueuePair cqp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq).build());
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
      BlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();
      var connected = client.connect(cqp, listener.localAddress(),
          ConnectParams.builder().eventListener(events::add).build());
      ConnectRequest request = requests.poll(WAIT, TimeUnit.SECONDS);
      assertNotNull(request, "no connect request");
      request.accept(sqp);
      connected.get(WAIT, TimeUnit.SECONDS);

      // The client learned the victim's STag; the server deregisters it and registers anew.
      int stale = victim.stag();
      victim.close();
      MemoryRegion fresh = spd.allocate(SIZE, ALL);
      byte[] content = pattern(2, SIZE);
      fresh.buffer().setBytes(0, content);
      assertEquals(StagTable.slotOf(stale, REGIONS), StagTable.slotOf(fresh.stag(), REGIONS),
          "the table must hand the freed slot back (it holds " + REGIONS + " regions)");
      assertNotEquals(stale, fresh.stag(), "the re-registered slot kept its key");
      System.out.printf("StagSecurityIT: stale STag 0x%08x, new STag 0x%08x in the same slot%n",
          stale, fresh.stag());

      cqp.postSend(new SendWorkRequest(1).wrId(7).opcode(WorkRequestOpcode.RDMA_WRITE)
          .flags(SendFlags.SIGNALED).remote(stale, fresh.address()).addSge(src, 0, SIZE));
      // A Write completes once TCP took it; the peer's verdict arrives as a Terminate.
      ConnectionEvent error = null;
      while (error == null) {
        ConnectionEvent e = events.poll(WAIT, TimeUnit.SECONDS);
        assertNotNull(e, "no ERROR event: the stale STag was not refused");
        if (e.type() == ConnectionEventType.ERROR) {
          error = e;
        }
      }
      TerminateInfo t = error.terminate();
      assertNotNull(t, "the QP went to ERROR without a Terminate: " + error);
      assertEquals(new TerminateInfo(1, 1, 0x00, true), t,
          "DDP Terminate tagged buffer / invalid STag from the server: " + error);
      // The Write itself completed when TCP took it (RFC 5040 §5.5); what it tried to place
      // was refused: not one octet of the new region changed.
      WorkCompletion[] out = {new WorkCompletion()};
      assertEquals(1, ccq.await(out, 1, WAIT, TimeUnit.SECONDS), "no completion");
      assertEquals(7, out[0].wrId());
      byte[] now = new byte[SIZE];
      fresh.buffer().getBytes(0, now);
      assertArrayEquals(content, now, "the new region was written through a stale STag");
      other.close();
      fresh.close();
    }
  }

  /**
   * A peer that was advertised one STag of a server with {@value #LIVE} live regions tries the
   * index on either side of it, with the advertised key and with the next key, one RDMA Write per
   * connection (a refused Write ends the connection): every guess draws DDP Terminate 1/1/0x00
   * (invalid STag), and not one octet of any live region changes. With the old sequential
   * indexes both neighbours were live regions, so a guess that carried their key would have
   * landed; now a neighbouring index is live only as often as any other and carries random index
   * bits and key of its own (the bound is StagSecurityTest's).
   */
  @Test
  void neighboursOfAnAdvertisedStagAreRefused() throws Exception {
    try (RdmaDevice server = RdmaDevice.open(); RdmaDevice client = RdmaDevice.open()) {
      ProtectionDomain spd = server.allocateProtectionDomain();
      CompletionQueue scq = server.createCompletionQueue(64);
      java.util.List<MemoryRegion> live = new java.util.ArrayList<>();
      java.util.List<byte[]> contents = new java.util.ArrayList<>();
      for (int i = 0; i < LIVE; i++) {
        MemoryRegion r = spd.allocate(SIZE, ALL);
        byte[] content = pattern(100 + i, SIZE);
        r.buffer().setBytes(0, content);
        live.add(r);
        contents.add(content);
      }
      int advertised = live.get(LIVE / 2).stag();
      int index = StagTable.indexOf(advertised);
      int key = StagTable.keyOf(advertised);
      int[] guesses = {
          (index - 1) << 8 | key, (index + 1) << 8 | key,
          (index - 1) << 8 | ((key + 1) & 0xFF), (index + 1) << 8 | ((key + 1) & 0xFF)};
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
      ProtectionDomain cpd = client.allocateProtectionDomain();
      MemoryRegion src = cpd.allocate(SIZE, ALL);
      src.buffer().setBytes(0, pattern(1, SIZE));
      for (int guess : guesses) {
        QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq).build());
        CompletionQueue ccq = client.createCompletionQueue(16);
        QueuePair cqp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq).build());
        BlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();
        var connected = client.connect(cqp, listener.localAddress(),
            ConnectParams.builder().eventListener(events::add).build());
        ConnectRequest request = requests.poll(WAIT, TimeUnit.SECONDS);
        assertNotNull(request, "no connect request");
        request.accept(sqp);
        connected.get(WAIT, TimeUnit.SECONDS);
        cqp.postSend(new SendWorkRequest(1).wrId(guess).opcode(WorkRequestOpcode.RDMA_WRITE)
            .flags(SendFlags.SIGNALED).remote(guess, 0).addSge(src, 0, 64));
        ConnectionEvent error = null;
        while (error == null) {
          ConnectionEvent e = events.poll(WAIT, TimeUnit.SECONDS);
          assertNotNull(e, String.format("no ERROR event: guess 0x%08x was not refused", guess));
          if (e.type() == ConnectionEventType.ERROR) {
            error = e;
          }
        }
        assertEquals(new TerminateInfo(1, 1, 0x00, true), error.terminate(),
            String.format("guess 0x%08x (advertised 0x%08x): %s", guess, advertised, error));
        cqp.close();
        sqp.close();
        ccq.close();
      }
      for (int i = 0; i < LIVE; i++) {
        byte[] now = new byte[SIZE];
        live.get(i).buffer().getBytes(0, now);
        assertArrayEquals(contents.get(i), now, "live region " + i + " changed");
        live.get(i).close();
      }
      System.out.printf("StagSecurityIT: advertised 0x%08x, %d neighbour guesses refused%n",
          advertised, guesses.length);
    }
  }

  private static byte[] pattern(long seed, int size) {
    byte[] b = new byte[size];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }
}
