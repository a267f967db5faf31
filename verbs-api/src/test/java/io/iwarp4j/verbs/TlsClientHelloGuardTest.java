package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The TLS listener's first handler: a ClientHello passes and the guard leaves; anything else (an
 * MPA Request in clear) gets the 7-octet fatal unexpected_message alert in clear and a close.
 */
class TlsClientHelloGuardTest {

  @Test
  void aClientHelloPassesAndTheGuardLeaves() {
    AtomicInteger refused = new AtomicInteger();
    TlsClientHelloGuard guard = new TlsClientHelloGuard(refused::incrementAndGet);
    EmbeddedChannel ch = new EmbeddedChannel(guard);
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {22, 3, 1, 0, 5, 1, 0, 0, 1, 0}));
    ByteBuf passed = ch.readInbound();
    assertEquals(22, passed.getByte(0));
    passed.release();
    assertNull(ch.pipeline().get(TlsClientHelloGuard.class));
    assertFalse(guard.refused());
    assertEquals(0, refused.get());
    assertNull(ch.readOutbound());
    assertTrue(ch.isOpen());
    ch.finishAndReleaseAll();
  }

  @Test
  void anMpaRequestInClearGetsAnAlertAndTheConnectionCloses() {
    AtomicInteger refused = new AtomicInteger();
    TlsClientHelloGuard guard = new TlsClientHelloGuard(refused::incrementAndGet);
    EmbeddedChannel ch = new EmbeddedChannel(guard);
    ch.writeInbound(Unpooled.copiedBuffer("MPA ID Req Frame\u0080\u0002\u0000\u0000",
        StandardCharsets.ISO_8859_1));
    assertNull(ch.readInbound(), "the cleartext Request went on");
    ByteBuf alert = ch.readOutbound();
    assertArrayEquals(new byte[] {21, 3, 3, 0, 2, 2, 10}, ByteBufUtil.getBytes(alert));
    alert.release();
    assertTrue(guard.refused());
    assertEquals(1, refused.get());
    assertFalse(ch.isOpen());
    ch.finishAndReleaseAll();
  }
}
