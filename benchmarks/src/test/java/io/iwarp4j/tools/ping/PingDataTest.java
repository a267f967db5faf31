package io.iwarp4j.tools.ping;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The ping payload is exactly rping's, so rping -V on the other side compares equal. */
class PingDataTest {
  @Test
  void pingZeroOfSixtyFourOctetsMatchesTheSiwCapture() {
    ByteBuf buf = Unpooled.buffer(64);
    PingData.fill(buf, 0, 64, 0);
    // docs/interop.md, siw finding §5: "rdma-ping-0: ABC...qr\0" (64 octets with the NUL).
    String text = "rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr";
    assertEquals(63, text.length());
    assertEquals(text, buf.toString(0, 63, StandardCharsets.US_ASCII));
    assertEquals(0, buf.getByte(63));
    assertEquals(text, PingData.text(buf, 0, 64));
    assertEquals(63, PingData.cLength(buf, 0, 64));
  }

  @Test
  void eachPingStartsOneLetterLaterAndWrapsFromLowercaseZToA() {
    ByteBuf buf = Unpooled.buffer(40);
    PingData.fill(buf, 0, 40, 1);
    assertEquals("rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[", PingData.text(buf, 0, 40));
    PingData.fill(buf, 0, 40, 57);
    assertEquals("rdma-ping-57: zABCDEFGHIJKLMNOPQRSTUVWX", PingData.text(buf, 0, 40));
    PingData.fill(buf, 0, 40, 58);
    assertEquals("rdma-ping-58: ABCDEFGHIJKLMNOPQRSTUVWXY", PingData.text(buf, 0, 40));
  }

  @Test
  void textWithoutNulStopsAtMax() {
    ByteBuf buf = Unpooled.copiedBuffer("abcdef", StandardCharsets.US_ASCII);
    assertEquals("abc", PingData.text(buf, 0, 3));
  }
}
