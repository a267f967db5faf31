package io.iwarp4j.example.kvstore;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionListener;
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
import java.util.function.Consumer;

/**
 * The store's server: it registers one region, tells each client where it is, and otherwise
 * stays out of the data path. Clients read and write the slots themselves; the server only
 * hears of each PUT through its Immediate Data, and passes it on as a {@link SlotChange}.
 */
public final class KvServer implements AutoCloseable {
  // Each PUT's Immediate Data consumes one receive, posted again as its completion is taken.
  private static final int RECEIVES_PER_CLIENT = 64;

  private final RdmaDevice device;
  private final ProtectionDomain pd;
  private final ByteBuffer store;
  private final MemoryRegion region;
  private final StoreLayout layout;
  private final Consumer<SlotChange> onPut;
  private final RdmaListener listener;

  /**
   * Opens a device, registers a region of {@code slots} slots and listens.
   *
   * @param address where to listen; port 0 picks a free one
   * @param slots how many keys the store can hold
   * @param onPut told of every PUT, on the client connection's event loop: it must not block
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
   * @param onPut told of every PUT, on the client connection's event loop: it must not block
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
    listener = device.listen(address, this::onConnectRequest);
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
    CompletionQueue cq;
    QueuePair qp;
    try {
      cq = device.createCompletionQueue(RECEIVES_PER_CLIENT);
      qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq)
          .maxRecvWr(RECEIVES_PER_CLIENT).build());
    } catch (IllegalStateException | IllegalArgumentException noResources) {
      request.reject(("kvstore: " + noResources.getMessage()).getBytes(StandardCharsets.UTF_8));
      return;
    }
    // Immediate Data places nothing, so the receives need no buffer.
    RecvWorkRequest recv = new RecvWorkRequest(0);
    for (int i = 0; i < RECEIVES_PER_CLIENT; i++) {
      qp.postRecv(recv);
    }
    cq.listener(new PutNotifier(qp)).requestNotify(false);
    request.accept(qp, AcceptParams.builder().privateData(layout.toPrivateData()).build())
        .whenComplete((connection, failure) -> {
          if (failure != null) {
            forget(qp, cq);
          } else {
            connection.closeFuture().whenComplete((ignored, error) -> forget(qp, cq));
          }
        });
  }

  private static void forget(QueuePair qp, CompletionQueue cq) {
    qp.close();
    cq.close();
  }

  /**
   * Takes one connection's receive completions, on its event loop, as they are added: the
   * receive is posted again before the event loop reads the client's next message, so a client
   * never finds the receive queue empty however fast it PUTs.
   */
  private final class PutNotifier implements CompletionListener {
    private final QueuePair qp;
    private final WorkCompletion[] batch = new WorkCompletion[16];
    private final RecvWorkRequest again = new RecvWorkRequest(0);

    PutNotifier(QueuePair qp) {
      this.qp = qp;
      for (int i = 0; i < batch.length; i++) {
        batch[i] = new WorkCompletion();
      }
    }

    @Override
    public void onCompletion(CompletionQueue cq) {
      drain(cq);
      if (!cq.isClosed()) {
        cq.requestNotify(false);
        drain(cq); // one added between the drain and the arming
      }
    }

    private void drain(CompletionQueue cq) {
      for (int n; (n = cq.poll(batch)) > 0; ) {
        for (int i = 0; i < n; i++) {
          // Anything else is a receive flushed because the client left.
          if (batch[i].isSuccess() && batch[i].opcode() == WcOpcode.RECV_IMMEDIATE_DATA) {
            postAgain();
            notifyPut(batch[i].immData());
          }
        }
      }
    }

    private void postAgain() {
      try {
        qp.postRecv(again);
      } catch (IllegalStateException closed) {
        // The client has left: nobody needs the receive.
      }
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
    // The device closes what it owns: listener, queue pairs, queues, the region.
    device.close();
  }
}
