package io.iwarp4j.verbs;

import java.util.Objects;

/**
 * A reusable scatter/gather list: up to {@link #capacity()} entries, each a range
 * ({@code offset}, {@code length}) of a {@link LocalBuffer}.
 *
 * <p>The capacity is fixed at construction (the queue pair's maximum SGEs per work request) so
 * that filling, clearing and copying a list never allocates. Entries are validated as they are
 * added: a range outside its buffer is rejected there, not when the work request executes.
 * Not thread-safe; a list belongs to one work request.
 */
public final class ScatterGatherList {

  /** The largest capacity accepted; far above what any provider supports per work request. */
  public static final int MAX_CAPACITY = 1024;

  private final LocalBuffer[] buffers;
  private final long[] offsets;
  private final long[] lengths;
  private int count;
  private long totalLength;

  /**
   * Creates an empty list.
   *
   * @param capacity the most entries it can hold, 0 to {@value #MAX_CAPACITY}
   * @throws IllegalArgumentException if {@code capacity} is out of range
   */
  public ScatterGatherList(int capacity) {
    if (capacity < 0 || capacity > MAX_CAPACITY) {
      throw new IllegalArgumentException("scatter/gather list capacity " + capacity
          + " is outside 0.." + MAX_CAPACITY);
    }
    buffers = new LocalBuffer[capacity];
    offsets = new long[capacity];
    lengths = new long[capacity];
  }

  /**
   * Appends an entry.
   *
   * @param buffer the memory the entry refers to
   * @param offset the first octet of the range, counted from the start of {@code buffer}
   * @param length the number of octets, at least 0
   * @return this list
   * @throws NullPointerException if {@code buffer} is null
   * @throws IllegalArgumentException if the list is full or the range does not lie within
   *     {@code buffer}
   */
  public ScatterGatherList add(LocalBuffer buffer, long offset, long length) {
    Objects.requireNonNull(buffer, "SGE buffer");
    if (count == buffers.length) {
      throw new IllegalArgumentException("scatter/gather list is full: capacity "
          + buffers.length + " SGEs");
    }
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException("SGE " + count + ": negative offset " + offset
          + " or length " + length);
    }
    long bufferLength = buffer.length();
    if (offset > bufferLength || length > bufferLength - offset) {
      throw new IllegalArgumentException("SGE " + count + ": range [" + offset + ", "
          + offset + " + " + length + ") lies outside the buffer of " + bufferLength
          + " octets (STag 0x" + Integer.toHexString(buffer.stag()) + ")");
    }
    long newTotal = totalLength + length;
    if (newTotal < 0) {
      throw new IllegalArgumentException("SGE " + count + ": total length overflows a long");
    }
    buffers[count] = buffer;
    offsets[count] = offset;
    lengths[count] = length;
    count++;
    totalLength = newTotal;
    return this;
  }

  /**
   * Appends an entry covering all of {@code buffer}.
   *
   * @param buffer the memory
   * @return this list
   * @throws NullPointerException if {@code buffer} is null
   * @throws IllegalArgumentException if the list is full
   */
  public ScatterGatherList add(LocalBuffer buffer) {
    Objects.requireNonNull(buffer, "SGE buffer");
    return add(buffer, 0, buffer.length());
  }

  /**
   * Removes all entries, dropping the references to their buffers.
   *
   * @return this list
   */
  public ScatterGatherList clear() {
    for (int i = 0; i < count; i++) {
      buffers[i] = null;
    }
    count = 0;
    totalLength = 0;
    return this;
  }

  /**
   * Replaces the entries of this list with those of {@code other}, without allocating.
   *
   * @param other the list to copy
   * @return this list
   * @throws IllegalArgumentException if {@code other} holds more entries than this capacity
   */
  public ScatterGatherList copyFrom(ScatterGatherList other) {
    if (other == this) {
      return this;
    }
    if (other.count > buffers.length) {
      throw new IllegalArgumentException(other.count + " SGEs do not fit a scatter/gather"
          + " list of capacity " + buffers.length);
    }
    for (int i = other.count; i < count; i++) {
      buffers[i] = null;
    }
    // A loop, not System.arraycopy: lists hold a few SGEs, and three array copies of one
    // element cost more than the element copies (this runs once per posted work request).
    for (int i = 0; i < other.count; i++) {
      buffers[i] = other.buffers[i];
      offsets[i] = other.offsets[i];
      lengths[i] = other.lengths[i];
    }
    count = other.count;
    totalLength = other.totalLength;
    return this;
  }

  /**
   * The most entries this list can hold.
   *
   * @return the capacity given at construction
   */
  public int capacity() {
    return buffers.length;
  }

  /**
   * The number of entries.
   *
   * @return the entry count
   */
  public int count() {
    return count;
  }

  /**
   * The sum of the entries' lengths: the message length of a Send or Write, the sink length of
   * a Read.
   *
   * @return the total length in octets
   */
  public long totalLength() {
    return totalLength;
  }

  /**
   * The buffer of entry {@code index}.
   *
   * @param index 0 to {@code count() - 1}
   * @return the buffer
   * @throws IndexOutOfBoundsException if there is no such entry
   */
  public LocalBuffer buffer(int index) {
    return buffers[Objects.checkIndex(index, count)];
  }

  /**
   * The offset of entry {@code index} within its buffer.
   *
   * @param index 0 to {@code count() - 1}
   * @return the offset in octets
   * @throws IndexOutOfBoundsException if there is no such entry
   */
  public long offset(int index) {
    return offsets[Objects.checkIndex(index, count)];
  }

  /**
   * The length of entry {@code index}.
   *
   * @param index 0 to {@code count() - 1}
   * @return the length in octets
   * @throws IndexOutOfBoundsException if there is no such entry
   */
  public long length(int index) {
    return lengths[Objects.checkIndex(index, count)];
  }

  /**
   * A readable form for diagnostics; it allocates.
   *
   * @return the entries as {@code [stag@offset+length, ...]}
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < count; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append("0x").append(Integer.toHexString(buffers[i].stag()))
          .append('@').append(offsets[i]).append('+').append(lengths[i]);
    }
    return sb.append(']').toString();
  }
}
