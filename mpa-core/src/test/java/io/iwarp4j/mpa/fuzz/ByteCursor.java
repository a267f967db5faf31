package io.iwarp4j.mpa.fuzz;

import java.util.Arrays;

/**
 * Reads a fuzz input front to back: choices as small integers, then octets. Past the end every
 * choice is 0 and every octet run is empty, so any input is a valid (if short) scenario. Seeds are
 * therefore easy to write by hand from the spec's vectors: the layout is documented per target.
 */
public final class ByteCursor {
  private final byte[] in;
  private int pos;

  /**
   * @param in the fuzz input
   */
  public ByteCursor(byte[] in) {
    this.in = in;
  }

  /**
   * @return the next octet, 0 past the end
   */
  public int u8() {
    return pos < in.length ? in[pos++] & 0xFF : 0;
  }

  /**
   * @return the next two octets, big-endian, 0 past the end
   */
  public int u16() {
    return (u8() << 8) | u8();
  }

  /**
   * @return the next four octets, big-endian
   */
  public int u32() {
    return (u16() << 16) | u16();
  }

  /**
   * @return whether the next octet is odd
   */
  public boolean bool() {
    return (u8() & 1) != 0;
  }

  /**
   * @param lo the smallest value
   * @param hi the largest value
   * @return a value in [lo, hi] taken from the next two octets
   */
  public int intIn(int lo, int hi) {
    return lo + u16() % (hi - lo + 1);
  }

  /**
   * @param max the most octets to take
   * @return up to {@code max} next octets
   */
  public byte[] bytes(int max) {
    int n = Math.min(max, in.length - pos);
    byte[] out = Arrays.copyOfRange(in, pos, pos + n);
    pos += n;
    return out;
  }

  /**
   * @return the octets not yet read
   */
  public int remaining() {
    return in.length - pos;
  }
}
