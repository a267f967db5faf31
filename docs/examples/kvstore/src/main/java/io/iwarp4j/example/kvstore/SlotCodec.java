package io.iwarp4j.example.kvstore;

import static io.iwarp4j.example.kvstore.StoreLayout.CHECKSUM;
import static io.iwarp4j.example.kvstore.StoreLayout.KEY;
import static io.iwarp4j.example.kvstore.StoreLayout.KEY_LENGTH;
import static io.iwarp4j.example.kvstore.StoreLayout.MAX_KEY;
import static io.iwarp4j.example.kvstore.StoreLayout.MAX_VALUE;
import static io.iwarp4j.example.kvstore.StoreLayout.SLOT_SIZE;
import static io.iwarp4j.example.kvstore.StoreLayout.VALUE;
import static io.iwarp4j.example.kvstore.StoreLayout.VALUE_LENGTH;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/** Encodes and checks the contents of one slot, {@code [CHECKSUM, SLOT_SIZE)} of its octets. */
final class SlotCodec {
  private SlotCodec() {
  }

  /** The key as UTF-8, refusing what does not fit a slot. */
  static byte[] keyBytes(String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    if (bytes.length == 0 || bytes.length > MAX_KEY) {
      throw new IllegalArgumentException("key '" + key + "' is " + bytes.length
          + " octets of UTF-8; keys are 1 to " + MAX_KEY);
    }
    return bytes;
  }

  /** The value as UTF-8, refusing what does not fit a slot. */
  static byte[] valueBytes(String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_VALUE) {
      throw new IllegalArgumentException("value is " + bytes.length
          + " octets of UTF-8; values are at most " + MAX_VALUE);
    }
    return bytes;
  }

  /** FNV-1a, 64 bits, never 0 (0 marks a free slot). */
  static long keyHash(byte[] key) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : key) {
      hash = (hash ^ (b & 0xff)) * 0x100000001b3L;
    }
    return hash == 0 ? 1 : hash;
  }

  /** Writes key, value and checksum into {@code slot}, a buffer of SLOT_SIZE octets. */
  static void encode(ByteBuffer slot, byte[] key, byte[] value) {
    for (int i = CHECKSUM; i < SLOT_SIZE; i++) {
      slot.put(i, (byte) 0);
    }
    slot.putShort(KEY_LENGTH, (short) key.length).putShort(VALUE_LENGTH, (short) value.length)
        .put(KEY, key).put(VALUE, value);
    slot.putInt(CHECKSUM, checksum(slot));
  }

  /** Whether the lengths are possible and the checksum matches: a copy that no PUT tore. */
  static boolean intact(ByteBuffer slot) {
    int keyLength = slot.getShort(KEY_LENGTH);
    int valueLength = slot.getShort(VALUE_LENGTH);
    return keyLength >= 1 && keyLength <= MAX_KEY && valueLength >= 0
        && valueLength <= MAX_VALUE && slot.getInt(CHECKSUM) == checksum(slot);
  }

  static byte[] key(ByteBuffer slot) {
    byte[] key = new byte[slot.getShort(KEY_LENGTH)];
    slot.get(KEY, key);
    return key;
  }

  static String value(ByteBuffer slot) {
    byte[] value = new byte[slot.getShort(VALUE_LENGTH)];
    slot.get(VALUE, value);
    return new String(value, StandardCharsets.UTF_8);
  }

  private static int checksum(ByteBuffer slot) {
    CRC32C crc = new CRC32C();
    crc.update(slot.slice(KEY_LENGTH, SLOT_SIZE - KEY_LENGTH));
    return (int) crc.getValue();
  }
}
