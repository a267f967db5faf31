package io.iwarp4j.example.kvstore;

import static io.iwarp4j.example.kvstore.StoreLayout.CHECKSUM;
import static io.iwarp4j.example.kvstore.StoreLayout.OWNER;
import static io.iwarp4j.example.kvstore.StoreLayout.SLOT_SIZE;
import static io.iwarp4j.example.kvstore.StoreLayout.VERSION;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A client of the store. Every operation is one-sided: the server's CPU takes no part in it.
 * One client is one connection and is used by one thread at a time; open one per thread.
 */
public final class KvClient implements AutoCloseable {
  private static final long TIMEOUT_SECONDS = 10;
  // The local region: the 8-octet result of an Atomic, a slot read back, a slot to write.
  private static final int RESULT = 0;
  private static final int READ = 64;
  private static final int WRITE = READ + SLOT_SIZE;

  private final RdmaDevice device;
  private final CompletionQueue cq;
  private final QueuePair qp;
  private final MemoryRegion local;
  private final ByteBuffer readSlot;
  private final ByteBuffer writeSlot;
  private final StoreLayout layout;
  // The owner and version words as the server stores them: in its byte order.
  private final ByteBuffer readWords;
  private final SendWorkRequest wr = new SendWorkRequest(1);
  private final WorkCompletion[] wc = {new WorkCompletion()};
  // A key's slot never changes once claimed (there is no delete), so it can be remembered.
  private final Map<String, Integer> slotOfKey = new HashMap<>();
  private long lastWrId;

  /**
   * Connects to a server and learns its region from the MPA Reply's private data.
   *
   * @param server the server's address
   * @return the connected client
   * @throws KvStoreException when the connection fails or the peer is not a kvstore server
   */
  public static KvClient connect(InetSocketAddress server) {
    return connect(DeviceConfig.defaults(), server);
  }

  /**
   * Like {@link #connect(InetSocketAddress)}, on a device configured by the caller.
   *
   * @param config the device's configuration
   * @param server the server's address
   * @return the connected client
   * @throws KvStoreException when the connection fails or the peer is not a kvstore server
   */
  public static KvClient connect(DeviceConfig config, InetSocketAddress server) {
    RdmaDevice device = RdmaDevice.open(config);
    try {
      return new KvClient(device, server);
    } catch (RuntimeException e) {
      device.close();
      throw e;
    }
  }

  private KvClient(RdmaDevice device, InetSocketAddress server) {
    this.device = device;
    var pd = device.allocateProtectionDomain();
    cq = device.createCompletionQueue(16);
    qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq).build());
    ByteBuffer memory = ByteBuffer.allocateDirect(WRITE + SLOT_SIZE + 8).alignedSlice(8);
    local = pd.register(memory, AccessFlags.LOCAL_WRITE);
    readSlot = memory.slice(READ, SLOT_SIZE);
    writeSlot = memory.slice(WRITE, SLOT_SIZE);
    try {
      layout = StoreLayout.fromPrivateData(device.connect(qp, server)
          .get(TIMEOUT_SECONDS, TimeUnit.SECONDS).peerPrivateData());
    } catch (ExecutionException e) {
      throw new KvStoreException("cannot connect to " + server + ": " + e.getCause(), e);
    } catch (TimeoutException | InterruptedException e) {
      throw new KvStoreException("no connection to " + server + " within "
          + TIMEOUT_SECONDS + " s", e);
    }
    readWords = readSlot.duplicate().order(layout.order());
  }

  /**
   * Stores a value. Claims the key's slot (ATOMIC_CMP_SWAP on its owner word) the first time,
   * locks it (ATOMIC_CMP_SWAP on its version), writes key, value and checksum with one
   * RDMA_WRITE_WITH_IMMEDIATE whose Immediate Data tells the server the slot, and unlocks
   * (ATOMIC_FETCH_ADD on the version).
   *
   * @param key 1 to 40 octets of UTF-8
   * @param value at most 192 octets of UTF-8
   * @return the slot the value went to
   * @throws KvStoreException when the store is full or an operation fails
   */
  public int put(String key, String value) {
    byte[] keyBytes = SlotCodec.keyBytes(key);
    SlotCodec.encode(writeSlot, keyBytes, SlotCodec.valueBytes(value));
    int slot = slotOfKey.computeIfAbsent(key, k -> claim(keyBytes));
    long versionAddress = layout.slotAddress(slot) + VERSION;
    long locked = lock(slot, versionAddress);
    post(wr.reset().opcode(WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE)
        .remote(layout.region().stag(), layout.slotAddress(slot) + CHECKSUM)
        .addSge(local, WRITE + CHECKSUM, SLOT_SIZE - CHECKSUM).immData(slot));
    // The server performs an Atomic only once every message before it has been placed
    // (RFC 7306 section 5.4, rule 5), so the unlock cannot overtake the Write.
    long before = fetchAdd(versionAddress, 1);
    if (before != locked) {
      throw new KvStoreException("slot " + slot + " held version " + before
          + " while this client had it locked at " + locked + ": another writer ignores the lock");
    }
    return slot;
  }

  /**
   * Reads a value with RDMA Reads of the key's slot (and the ones after it, if the key had to
   * probe), retrying a copy that a concurrent PUT tore.
   *
   * @param key 1 to 40 octets of UTF-8
   * @return the value, or empty when the key has none
   * @throws KvStoreException when an operation fails or a slot stays locked or torn
   */
  public Optional<String> get(String key) {
    byte[] keyBytes = SlotCodec.keyBytes(key);
    long hash = SlotCodec.keyHash(keyBytes);
    for (int probe = 0; probe < layout.slots(); probe++) {
      int slot = layout.slotFor(hash, probe);
      read(slot);
      long owner = readWords.getLong(OWNER);
      if (owner == 0) {
        return Optional.empty(); // the key would have claimed this free slot
      }
      if (owner == hash) {
        if (!readStable(slot)) {
          return Optional.empty(); // claimed, but its first PUT has not finished
        }
        if (Arrays.equals(SlotCodec.key(readSlot), keyBytes)) {
          return Optional.of(SlotCodec.value(readSlot));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Adds one to the shared counter with ATOMIC_FETCH_ADD.
   *
   * @return the counter after this increment
   */
  public long increment() {
    return fetchAdd(layout.counterAddress(), 1) + 1;
  }

  // Linear probing: the first slot from the key's home that is free or already the key's.
  private int claim(byte[] key) {
    long hash = SlotCodec.keyHash(key);
    for (int probe = 0; probe < layout.slots(); probe++) {
      int slot = layout.slotFor(hash, probe);
      long owner = compareAndSwap(layout.slotAddress(slot) + OWNER, 0, hash);
      if (owner == 0 || owner == hash) {
        return slot;
      }
    }
    throw new KvStoreException("the store is full: all " + layout.slots()
        + " slots hold other keys");
  }

  // Moves the version from even to odd; returns the odd value. Another PUT holding the lock
  // shows as an odd version: retry against the even value its unlock will leave.
  private long lock(int slot, long versionAddress) {
    long expected = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    for (;;) {
      long seen = compareAndSwap(versionAddress, expected, expected + 1);
      if (seen == expected) {
        return expected + 1;
      }
      expected = (seen & 1) == 0 ? seen : seen + 1;
      if (System.nanoTime() > deadline) {
        throw new KvStoreException("slot " + slot + " stayed locked for " + TIMEOUT_SECONDS
            + " s: did a client die in the middle of a PUT?");
      }
    }
  }

  // Reads the slot again until the copy is stable: not being written (even version) and not
  // torn by a PUT that began after the read saw the version (checksum). False: never written.
  private boolean readStable(int slot) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    for (;;) {
      long version = readWords.getLong(VERSION);
      if (version == 0) {
        return false;
      }
      if ((version & 1) == 0 && SlotCodec.intact(readSlot)) {
        return true;
      }
      if (System.nanoTime() > deadline) {
        throw new KvStoreException("slot " + slot + " stayed locked or torn for "
            + TIMEOUT_SECONDS + " s: did a client die in the middle of a PUT?");
      }
      read(slot);
    }
  }

  private void read(int slot) {
    execute(wr.reset().opcode(WorkRequestOpcode.RDMA_READ)
        .remote(layout.region().stag(), layout.slotAddress(slot))
        .addSge(local, READ, SLOT_SIZE), "RDMA Read of slot " + slot);
  }

  private long compareAndSwap(long address, long expected, long swap) {
    execute(wr.reset().opcode(WorkRequestOpcode.ATOMIC_CMP_SWAP)
        .remote(layout.region().stag(), address).compareData(expected).swapData(swap)
        .localResult(local, RESULT), "ATOMIC_CMP_SWAP");
    return local.getLong(RESULT); // the Atomic leaves the original value in native order
  }

  private long fetchAdd(long address, long add) {
    execute(wr.reset().opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD)
        .remote(layout.region().stag(), address).addData(add).localResult(local, RESULT),
        "ATOMIC_FETCH_ADD");
    return local.getLong(RESULT);
  }

  // Posts without asking for a completion; a failure still completes, and surfaces in the
  // next execute(), since completions arrive in send-queue order.
  private void post(SendWorkRequest request) {
    qp.postSend(request.wrId(++lastWrId));
  }

  private void execute(SendWorkRequest request, String what) {
    long id = ++lastWrId;
    qp.postSend(request.wrId(id).flags(SendFlags.SIGNALED));
    int n;
    try {
      n = cq.await(wc, TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KvStoreException("interrupted while waiting for " + what, e);
    }
    if (n == 0) {
      throw new KvStoreException(what + " did not complete within " + TIMEOUT_SECONDS + " s");
    }
    if (!wc[0].isSuccess() || wc[0].wrId() != id) {
      throw new KvStoreException(what + " failed: " + wc[0]);
    }
  }

  /** Disconnects and frees the client's queue pair, region and device. */
  @Override
  public void close() {
    qp.close();
    device.close();
  }
}
