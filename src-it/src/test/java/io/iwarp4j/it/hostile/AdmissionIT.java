package io.iwarp4j.it.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.AdmissionCounters;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Admission at the listener (docs/reliability.md "Admission"): connections that connect and send
 * nothing, from other loopback addresses (127.0.0.2 and up; Linux routes all of 127/8 to lo), do
 * not lock a healthy client from 127.0.0.1 out. Per source, at most
 * {@link DeviceConfig#maxStartupConnectionsPerSource()} wait in the MPA startup and the rest are
 * closed at once; with the device at {@link DeviceConfig#maxConnections()}, a new connection
 * closes the oldest one still in the startup. Each test then runs a whole client exchange
 * (connect, one Send into a posted receive, disconnect) with a generous bound and checks the
 * device's {@link AdmissionCounters}.
 */
@Timeout(120)
class AdmissionIT {
  private static final long T = 30;

  /** One source opens more than its share: the surplus is refused, a healthy client served. */
  @Test
  void oneSourceIsHeldToItsShareOfTheStartup() throws Exception {
    int perSource = 16;
    int flood = 100;
    try (RdmaDevice server = RdmaDevice.open(DeviceConfig.builder().maxConnections(64)
            .maxStartupConnectionsPerSource(perSource).build());
        RdmaDevice client = RdmaDevice.open();
        Flood sockets = new Flood()) {
      Served served = new Served(server);
      sockets.open("127.0.0.2", flood, served.listener.localAddress());
      awaitCounters(server, c -> c.refusedPerSource() == flood - perSource);
      long took = served.exchange(client);
      AdmissionCounters c = server.admissionCounters();
      assertEquals(new AdmissionCounters(flood - perSource, 0, 0), c);
      System.out.printf("AdmissionIT: %d half-open from 127.0.0.2, %s; a client from 127.0.0.1 "
          + "connected, sent and disconnected in %d ms%n", flood, c, took);
    }
  }

  /**
   * Several sources within their share fill the device: the oldest half-open connections make
   * room, first for the flood's own later connections and then for the healthy client.
   */
  @Test
  void aFullDeviceEvictsTheOldestHalfOpenConnection() throws Exception {
    int perSource = 16;
    int max = 32;
    try (RdmaDevice server = RdmaDevice.open(DeviceConfig.builder().maxConnections(max)
            .maxStartupConnectionsPerSource(perSource).build());
        RdmaDevice client = RdmaDevice.open();
        Flood sockets = new Flood()) {
      Served served = new Served(server);
      for (String source : new String[] {"127.0.0.2", "127.0.0.3", "127.0.0.4"}) {
        sockets.open(source, perSource, served.listener.localAddress());
      }
      awaitCounters(server, c -> c.evicted() == 3 * perSource - max);
      long took = served.exchange(client);
      AdmissionCounters c = server.admissionCounters();
      // The client's connection evicted one more; nothing was refused.
      assertEquals(new AdmissionCounters(0, 0, 3 * perSource - max + 1), c);
      System.out.printf("AdmissionIT: %d half-open from 3 sources on a device of %d, %s; a "
          + "client from 127.0.0.1 was served in %d ms%n", 3 * perSource, max, c, took);
    }
  }

  /**
   * Issue 20's case with the default settings: 1,100 connections from one source that send
   * nothing; a client from another address still completes its exchange (printed: the time).
   */
  @Test
  void elevenHundredHalfOpenFromOneSourceWithTheDefaults() throws Exception {
    int flood = 1100;
    try (RdmaDevice server = RdmaDevice.open();
        RdmaDevice client = RdmaDevice.open();
        Flood sockets = new Flood()) {
      Served served = new Served(server);
      int perSource = server.config().maxStartupConnectionsPerSource();
      sockets.open("127.0.0.2", flood, served.listener.localAddress());
      awaitCounters(server, c -> c.refusedPerSource() + c.refusedDeviceFull() + c.evicted()
          >= flood - perSource);
      long took = served.exchange(client);
      System.out.printf("AdmissionIT: %d half-open from 127.0.0.2 (defaults), %s; a client from "
          + "127.0.0.1 was served in %d ms%n", flood, server.admissionCounters(), took);
      assertTrue(took < TimeUnit.SECONDS.toMillis(T), took + " ms");
    }
  }

  private static void awaitCounters(RdmaDevice device, Predicate<AdmissionCounters> done)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
    while (!done.test(device.admissionCounters())) {
      assertTrue(System.nanoTime() < deadline, "counters stuck at " + device.admissionCounters());
      Thread.sleep(20);
    }
  }

  /** Plain sockets that connect from one address and send nothing. */
  private static final class Flood implements AutoCloseable {
    final List<Socket> sockets = new ArrayList<>();

    void open(String source, int n, SocketAddress server) throws IOException {
      for (int i = 0; i < n; i++) {
        Socket s = new Socket();
        sockets.add(s);
        s.bind(new InetSocketAddress(source, 0));
        s.connect(server, (int) TimeUnit.SECONDS.toMillis(T));
      }
    }

    @Override
    public void close() throws IOException {
      for (Socket s : sockets) {
        s.close();
      }
    }
  }

  /** A listener that accepts every request with a queue pair that has one receive posted. */
  private static final class Served {
    final RdmaDevice server;
    final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    final RdmaListener listener;

    Served(RdmaDevice server) throws IOException {
      this.server = server;
      this.listener = server.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
    }

    /** Connect, one Send into the server's receive, disconnect: the milliseconds it took. */
    long exchange(RdmaDevice client) throws Exception {
      int rw = AccessFlags.LOCAL_WRITE;
      ProtectionDomain spd = server.allocateProtectionDomain();
      CompletionQueue scq = server.createCompletionQueue(8);
      QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq).build());
      MemoryRegion sink = spd.allocate(64, rw);
      sqp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(sink, 0, 64));
      ProtectionDomain cpd = client.allocateProtectionDomain();
      CompletionQueue ccq = client.createCompletionQueue(8);
      QueuePair cqp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq).build());
      MemoryRegion src = cpd.allocate(64, rw);
      src.buffer().setLong(0, 0x1A7E_5EEDL);
      long start = System.nanoTime();
      var connected = client.connect(cqp, (InetSocketAddress) listener.localAddress());
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "the healthy client's request never reached the application");
      request.accept(sqp);
      RdmaConnection connection = connected.get(T, TimeUnit.SECONDS);
      cqp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED).addSge(src, 0, 64));
      WorkCompletion[] out = {new WorkCompletion()};
      assertEquals(1, scq.await(out, 1, T, TimeUnit.SECONDS), "no receive completion");
      assertEquals(WcStatus.SUCCESS, out[0].status(), out[0].toString());
      assertEquals(0x1A7E_5EEDL, sink.buffer().getLong(0));
      assertEquals(1, ccq.await(out, 1, T, TimeUnit.SECONDS), "no send completion");
      connection.disconnect().get(T, TimeUnit.SECONDS);
      long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      cqp.close();
      sqp.close();
      return took;
    }
  }
}
