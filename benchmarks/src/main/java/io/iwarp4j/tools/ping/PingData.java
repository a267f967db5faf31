package io.iwarp4j.tools.ping;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * The ping payload as rping builds it: {@code "rdma-ping-<n>: "}, then letters cycling from 'A'
 * to 'z' starting one further for each ping, and a terminating NUL in the last octet.
 */
public final class PingData {
  /** The smallest payload rping accepts: sizeof("2147483647") + sizeof("rdma-ping-%d: "). */
  public static final int MIN_SIZE = 26;
  /** The largest payload rping accepts (RPING_BUFSIZE - 1). */
  public static final int MAX_SIZE = 64 * 1024 - 1;

  private static final int FIRST = 'A';
  private static final int LAST = 'z';

  private PingData() {
  }

  /**
   * Fills {@code size} octets at {@code index} with the payload of ping number {@code ping}.
   *
   * @param buf the buffer
   * @param index where the payload starts
   * @param size payload length, {@link #MIN_SIZE}..{@link #MAX_SIZE}
   * @param ping the ping number, from 0
   */
  public static void fill(ByteBuf buf, int index, int size, int ping) {
    byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
    int n = Math.min(head.length, size - 1);
    buf.setBytes(index, head, 0, n);
    int c = FIRST + ping % (LAST - FIRST + 1);
    for (int i = n; i < size - 1; i++) {
      buf.setByte(index + i, c);
      c = c == LAST ? FIRST : c + 1;
    }
    buf.setByte(index + size - 1, 0);
  }

  /**
   * The text up to the first NUL (or {@code max} octets), as rping prints it with {@code %s}.
   *
   * @param buf the buffer
   * @param index where the text starts
   * @param max octets to look at
   * @return the text
   */
  public static String text(ByteBuf buf, int index, int max) {
    int len = cLength(buf, index, max);
    return buf.toString(index, len, StandardCharsets.ISO_8859_1);
  }

  /**
   * {@code strlen}, bounded by {@code max}.
   *
   * @param buf the buffer
   * @param index where the text starts
   * @param max octets to look at
   * @return the number of octets before the first NUL, or {@code max} if there is none
   */
  public static int cLength(ByteBuf buf, int index, int max) {
    int nul = buf.indexOf(index, index + max, (byte) 0);
    return nul < 0 ? max : nul - index;
  }
}
