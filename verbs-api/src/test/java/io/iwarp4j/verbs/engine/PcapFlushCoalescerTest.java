package io.iwarp4j.verbs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.channels.ClosedChannelException;
import org.junit.jupiter.api.Test;

/**
 * {@link PcapFlushCoalescer}: the pieces written between two flushes leave as one buffer, in
 * order and without a copy, each write's future completes with it, and unflushed writes fail on
 * close with their buffers released.
 */
class PcapFlushCoalescerTest {
  @Test
  void piecesBetweenFlushesLeaveAsOneBufferAndEveryFutureCompletes() {
    EmbeddedChannel ch = new EmbeddedChannel(new PcapFlushCoalescer());
    ChannelFuture a = ch.write(Unpooled.wrappedBuffer(new byte[] {1, 2}));
    ChannelFuture b = ch.write(Unpooled.wrappedBuffer(new byte[] {3, 4, 5}));
    ch.write(Unpooled.wrappedBuffer(new byte[] {6}), ch.voidPromise());
    assertNull(ch.readOutbound(), "nothing leaves before the flush");
    assertFalse(a.isDone());
    ch.flush();
    ByteBuf out = ch.readOutbound();
    assertEquals("010203040506", ByteBufUtil.hexDump(out));
    out.release();
    assertNull(ch.readOutbound(), "one buffer per flush");
    assertTrue(a.isSuccess());
    assertTrue(b.isSuccess());
    ch.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {7}));
    ByteBuf next = ch.readOutbound();
    assertEquals("07", ByteBufUtil.hexDump(next));
    next.release();
    assertFalse(ch.finish());
  }

  @Test
  void anotherMessageTypeFlushesWhatWaitsFirstToKeepTheOrder() {
    EmbeddedChannel ch = new EmbeddedChannel(new PcapFlushCoalescer());
    ch.write(Unpooled.wrappedBuffer(new byte[] {1}));
    ch.writeAndFlush("not a buffer");
    ByteBuf first = ch.readOutbound();
    assertEquals("01", ByteBufUtil.hexDump(first));
    first.release();
    assertEquals("not a buffer", ch.readOutbound());
    assertFalse(ch.finish());
  }

  @Test
  void unflushedWritesFailOnCloseAndAreReleased() {
    EmbeddedChannel ch = new EmbeddedChannel(new PcapFlushCoalescer());
    ByteBuf buf = Unpooled.buffer(4).writeInt(42);
    ChannelFuture f = ch.write(buf);
    ch.close();
    assertTrue(f.isDone());
    assertTrue(f.cause() instanceof ClosedChannelException, String.valueOf(f.cause()));
    assertEquals(0, buf.refCnt());
    assertNull(ch.readOutbound());
  }
}
