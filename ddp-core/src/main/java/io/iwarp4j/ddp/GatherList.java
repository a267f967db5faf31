package io.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * An ordered list of (buffer, index, length) regions, like a verbs scatter/gather list: the
 * {@link Gather} of one outgoing DDP message for DDP's own callers ({@link DdpSegmenter}), or the
 * regions of one posted receive buffer, filled in order
 * ({@link UntaggedReceiveQueue#post(GatherList, long)}).
 *
 * <p>The list does not own its buffers: it neither retains nor releases them, and the caller keeps
 * them alive until the send that reads the list returns (the send takes its own references).
 * {@link #clear()} keeps the arrays, so a list reused for every send allocates nothing once it has
 * grown to the largest entry count seen. Not thread-safe.
 */
public final class GatherList extends Gather {
  private ByteBuf[] buffers;
  private int[] indexes;
  private int[] lengths;
  private int size;
  private long totalLength;

  /** An empty list with room for a few entries. */
  public GatherList() {
    this(4);
  }

  /**
   * An empty list with room for {@code initialCapacity} entries (it grows if needed).
   *
   * @param initialCapacity the number of pieces it holds before growing
   */
  public GatherList(int initialCapacity) {
    int n = Math.max(1, initialCapacity);
    buffers = new ByteBuf[n];
    indexes = new int[n];
    lengths = new int[n];
  }

  /**
   * Appends {@code length} octets of {@code buf} starting at absolute index {@code index}
   * (the buffer's reader and writer indexes are ignored and never moved).
   *
   * @param buf the buffer
   * @param index the index of the first octet
   * @param length the number of octets
   * @return this list
   * @throws IndexOutOfBoundsException if the region is not inside the buffer's capacity
   */
  public GatherList add(ByteBuf buf, int index, int length) {
    if (buf == null) {
      throw new NullPointerException("buf");
    }
    if (index < 0 || length < 0 || index > buf.capacity() - length) {
      throw new IndexOutOfBoundsException("gather region [" + index + ", " + index + "+" + length
          + ") outside buffer capacity " + buf.capacity());
    }
    if (size == buffers.length) {
      grow();
    }
    buffers[size] = buf;
    indexes[size] = index;
    lengths[size] = length;
    size++;
    totalLength += length;
    return this;
  }

  /**
   * Appends the readable octets of {@code buf}.
   *
   * @param buf the buffer
   * @return this list
   */
  public GatherList add(ByteBuf buf) {
    return add(buf, buf.readerIndex(), buf.readableBytes());
  }

  private void grow() {
    int n = buffers.length * 2;
    buffers = Arrays.copyOf(buffers, n);
    indexes = Arrays.copyOf(indexes, n);
    lengths = Arrays.copyOf(lengths, n);
  }

  /** Forgets every entry (without releasing anything) and keeps the storage for reuse. */
  public void clear() {
    Arrays.fill(buffers, 0, size, null);
    size = 0;
    totalLength = 0;
  }

  /**
   * Number of entries.
   *
   * @return number of entries
   */
  @Override
  public int size() {
    return size;
  }

  /**
   * Sum of the entries' lengths: the message length this list contributes.
   *
   * @return the sum of the entries' lengths: the message length this list contributes
   */
  @Override
  public long totalLength() {
    return totalLength;
  }

  /**
   * The buffer of entry {@code i}.
   *
   * @param i the piece index, from 0
   * @return the buffer of entry {@code i}
   */
  @Override
  public ByteBuf buffer(int i) {
    checkEntry(i);
    return buffers[i];
  }

  /**
   * The absolute start index of entry {@code i} in its buffer.
   *
   * @param i the piece index, from 0
   * @return the absolute start index of entry {@code i} in its buffer
   */
  @Override
  public int index(int i) {
    checkEntry(i);
    return indexes[i];
  }

  /**
   * The length of entry {@code i}.
   *
   * @param i the piece index, from 0
   * @return the length of entry {@code i}
   */
  @Override
  public int length(int i) {
    checkEntry(i);
    return lengths[i];
  }

  private void checkEntry(int i) {
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException("entry " + i + " of " + size);
    }
  }

  @Override
  public String toString() {
    return "GatherList{entries=" + size + ", length=" + totalLength + "}";
  }
}
