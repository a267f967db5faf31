package io.iwarp4j.example.kvstore;

import io.iwarp4j.verbs.RemoteBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Where things are in the server's region, and the advertisement of that region that a client
 * receives as the private data of the MPA Reply.
 *
 * <pre>
 * region  [0, 8)     the shared counter, changed only by ATOMIC_FETCH_ADD
 *         [64, ...)  slots of SLOT_SIZE octets; key k lives in the first slot, from
 *                    hash(k) mod slots on (linear probing), whose owner is hash(k)
 * slot    [0, 8)     owner: hash of the key, 0 while free; claimed once by ATOMIC_CMP_SWAP
 *         [8, 16)    version: even when stable, odd while a PUT writes (the PUT's lock)
 *         [16, 20)   CRC32C of [20, SLOT_SIZE), so that a reader can tell a torn copy
 *         [20, 22)   key length       [22, 24)  value length
 *         [24, 64)   key, UTF-8       [64, 256) value, UTF-8
 * </pre>
 *
 * The owner, version and counter words are targets of Atomics, so they are in the server's
 * native byte order (RFC 7306 leaves the representation to the responder); the advertisement
 * names that order. Everything else is big-endian.
 *
 * @param region the server's region: STag, address, length
 * @param slots the number of slots
 * @param order the byte order of the server's atomic words
 */
record StoreLayout(RemoteBuffer region, int slots, ByteOrder order) {
  static final int COUNTER = 0;
  static final int FIRST_SLOT = 64;
  static final int SLOT_SIZE = 256;
  static final int OWNER = 0;
  static final int VERSION = 8;
  static final int CHECKSUM = 16;
  static final int KEY_LENGTH = 20;
  static final int VALUE_LENGTH = 22;
  static final int KEY = 24;
  static final int MAX_KEY = 40;
  static final int VALUE = KEY + MAX_KEY;
  static final int MAX_VALUE = SLOT_SIZE - VALUE;

  /** Octets of the advertisement: the region, the slot count, the byte order. */
  static final int ADVERTISEMENT_LENGTH = RemoteBuffer.ENCODED_LENGTH + 4 + 1;

  /** The octets a region of {@code slots} slots needs. */
  static int regionLength(int slots) {
    return FIRST_SLOT + slots * SLOT_SIZE;
  }

  /** The offset of slot {@code index} in the region. */
  static int slotOffset(int index) {
    return FIRST_SLOT + index * SLOT_SIZE;
  }

  /** The server-side address of slot {@code index}, for the work requests' remote address. */
  long slotAddress(int index) {
    return region.address() + slotOffset(index);
  }

  /** The server-side address of the counter. */
  long counterAddress() {
    return region.address() + COUNTER;
  }

  /** The slot a key with this hash tries after {@code probe} taken slots. */
  int slotFor(long keyHash, int probe) {
    return (int) Math.floorMod(keyHash + probe, (long) slots);
  }

  byte[] toPrivateData() {
    return ByteBuffer.allocate(ADVERTISEMENT_LENGTH).put(region.toBytes()).putInt(slots)
        .put((byte) (order == ByteOrder.LITTLE_ENDIAN ? 1 : 0)).array();
  }

  static StoreLayout fromPrivateData(byte[] data) {
    if (data.length != ADVERTISEMENT_LENGTH) {
      throw new KvStoreException("the server sent " + data.length + " octets of private data,"
          + " a kvstore advertisement has " + ADVERTISEMENT_LENGTH + ": not a kvstore server?");
    }
    ByteBuffer in = ByteBuffer.wrap(data);
    RemoteBuffer region = RemoteBuffer.fromBytes(data, 0);
    int slots = in.getInt(RemoteBuffer.ENCODED_LENGTH);
    if (slots < 1 || region.length() < regionLength(slots)) {
      throw new KvStoreException("the advertised region " + region + " cannot hold " + slots
          + " slots");
    }
    ByteOrder order = in.get(ADVERTISEMENT_LENGTH - 1) == 1
        ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
    return new StoreLayout(region, slots, order);
  }
}
