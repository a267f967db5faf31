package io.iwarp4j.example.kvstore;

import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkCompletion;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The store's server: it registers one region, tells each client where it is, and otherwise
 * stays out of the data path. Clients read and write the slots themselves; the server only
 * hears of each PUT through its Immediate Data, and passes it on as a {@link SlotChange}.
 */
public final class KvServer implements AutoCloseable {
  /** Connections accepted at once; more are rejected. */
  static final int MAX_CLIENTS = 32;
  // Each PUT's Immediate Data consumes one receive; the notifier thread posts it again.
  private static final int RECEIVES_PER_CLIENT = 64;

  private final RdmaDevice device;
  private final ProtectionDomain pd;
  private final ByteBuffer store;
  private final MemoryRegion region;
  private final StoreLayout layout;
  // Twice what the clients can have posted: room for a departed client's flushed receives.
  private final CompletionQueue receives;
  private final Map<Integer, QueuePair> clients = new ConcurrentHashMap<>();
  private final Consumer<SlotChange> onPut;
  private final RdmaListener listener;
  private final Thread notifier;
  private volatile boolean closing;

  /**
   * Opens a device, registers a region of {@code slots} slots and listens.
   *
   * @param address where to listen; port 0 picks a free one
   * @param slots how many keys the store can hold
   * @param onPut told of every PUT, on the server's notifier thread
   * @return the running server
   * @throws IOException when the address cannot be bound
   */
  public static KvServer start(InetSocketAddress address, int slots, Consumer<SlotChange> onPut)
      throws IOException {
    return start(DeviceConfig.defaults(), address, slots, onPut);
  }

  /**
   * Like {@link #start(InetSocketAddress, int, Consumer)}, on a device configured by the caller.
   *
   * @param config the device's configuration
   * @param address where to listen; port 0 picks a free one
   * @param slots how many keys the store can hold
   * @param onPut told of every PUT, on the server's notifier thread
   * @return the running server
   * @throws IOException when the address cannot be bound
   */
  public static KvServer start(DeviceConfig config, InetSocketAddress address, int slots,
      Consumer<SlotChange> onPut) throws IOException {
    RdmaDevice device = RdmaDevice.open(config);
    try {
      return new KvServer(device, address, slots, onPut);
    } catch (IOException | RuntimeException e) {
      device.close();
      throw e;
    }
  }

  private KvServer(RdmaDevice device, InetSocketAddress address, int slots,
      Consumer<SlotChange> onPut) throws IOException {
    if (slots < 1 || slots > (Integer.MAX_VALUE - StoreLayout.FIRST_SLOT) / StoreLayout.SLOT_SIZE) {
      throw new IllegalArgumentException("slots " + slots + " is out of range");
    }
    this.device = device;
    this.onPut = onPut;
    pd = device.allocateProtectionDomain();
    // Aligned so that the counter and each slot's owner and version words are valid Atomic
    // targets (RFC 7306 requires 8-octet alignment).
    int length = StoreLayout.regionLength(slots);
    store = ByteBuffer.allocateDirect(length + 64).alignedSlice(64).limit(length);
    region = pd.register(store, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ
        | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC);
    layout = new StoreLayout(region.remote(), slots, ByteOrder.nativeOrder());
    receives = device.createCompletionQueue(2 * MAX_CLIENTS * RECEIVES_PER_CLIENT);
    listener = device.listen(address, this::onConnectRequest);
    notifier = new Thread(this::deliverNotifications, "kvstore-notifier");
    notifier.start();
  }

  /**
   * The address the server listens on.
   *
   * @return the bound address, with the port chosen if 0 was asked for
   */
  public InetSocketAddress address() {
    return listener.localAddress();
  }

  /**
   * The shared counter, read locally.
   *
   * @return the number of increments clients have made
   */
  public long counter() {
    return region.getLong(StoreLayout.COUNTER);
  }

  // Runs on an event loop: everything here returns at once.
  private void onConnectRequest(ConnectRequest request) {
    if (clients.size() >= MAX_CLIENTS) {
      request.reject("kvstore: too many clients".getBytes(StandardCharsets.US_ASCII));
      return;
    }
    QueuePair qp;
    try {
      qp = device.createQueuePair(pd, QueuePairConfig.builder(receives, receives)
          .maxRecvWr(RECEIVES_PER_CLIENT).build());
    } catch (IllegalStateException deviceClosedOrFull) {
      request.reject("kvstore: no queue pair".getBytes(StandardCharsets.US_ASCII));
      return;
    }
    // Immediate Data places nothing, so the receives need no buffer.
    RecvWorkRequest recv = new RecvWorkRequest(0);
    for (int i = 0; i < RECEIVES_PER_CLIENT; i++) {
      qp.postRecv(recv);
    }
    clients.put(qp.number(), qp);
    request.accept(qp, AcceptParams.builder().privateData(layout.toPrivateData()).build())
        .whenComplete((connection, failure) -> {
          if (failure != null) {
            forget(qp);
          } else {
            connection.closeFuture().whenComplete((ignored, error) -> forget(qp));
          }
        });
  }

  private void forget(QueuePair qp) {
    clients.remove(qp.number());
    qp.close();
  }

  // The notifier thread: one completion per PUT, in the order each client made them.
  private void deliverNotifications() {
    WorkCompletion[] batch = new WorkCompletion[16];
    for (int i = 0; i < batch.length; i++) {
      batch[i] = new WorkCompletion();
    }
    RecvWorkRequest again = new RecvWorkRequest(0);
    while (!closing) {
      int n;
      try {
        n = receives.await(batch, 200, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
      for (int i = 0; i < n; i++) {
        WorkCompletion wc = batch[i];
        // Anything else is a receive flushed because its client left.
        if (wc.isSuccess() && wc.opcode() == WcOpcode.RECV_IMMEDIATE_DATA) {
          postAgain(wc.qpNumber(), again);
          notifyPut(wc.immData());
        }
      }
    }
  }

  private void postAgain(int qpNumber, RecvWorkRequest recv) {
    QueuePair qp = clients.get(qpNumber);
    try {
      if (qp != null) {
        qp.postRecv(recv);
      }
    } catch (IllegalStateException closedMeanwhile) {
      // The client left between its PUT and now: nobody needs the receive.
    }
  }

  private void notifyPut(long immediateData) {
    if (immediateData < 0 || immediateData >= layout.slots()) {
      System.getLogger(KvServer.class.getName()).log(System.Logger.Level.WARNING,
          "a client named slot " + immediateData + " of " + layout.slots() + "; ignored");
      return;
    }
    int slot = (int) immediateData;
    // Every PUT of a slot writes the same key there, so the key reads stably even if another
    // PUT of it is under way; the value may not, which is why clients check the checksum.
    ByteBuffer contents = store.slice(StoreLayout.slotOffset(slot), StoreLayout.SLOT_SIZE);
    int keyLength = contents.getShort(StoreLayout.KEY_LENGTH);
    byte[] key = new byte[Math.max(0, Math.min(keyLength, StoreLayout.MAX_KEY))];
    contents.get(StoreLayout.KEY, key);
    onPut.accept(new SlotChange(slot, new String(key, StandardCharsets.UTF_8)));
  }

  /** Stops listening, disconnects every client and frees the region. */
  @Override
  public void close() {
    closing = true;
    try {
      notifier.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      // The device closes what it owns: listener, queue pairs, queues, the region.
      device.close();
    }
  }
}
