package io.iwarp4j.ddp;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.RegionOptions;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.ddp.testing.FramedStream;
import io.iwarp4j.mpa.FpduFramer;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.testing.Outbound;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The hooks the RDMAP layer uses: an untagged segment the upper layer refuses before placement
 * ({@link DdpStreamListener#acceptUntagged}) is not placed and stops the stream without a DDP
 * error, and the upper layer is asked only after DDP's own checks passed; a stream can be built
 * before its listener ({@link DdpStream#setListener}); a region hands out retained slices of its
 * memory only under a pin ({@link MemoryRegion#retainedSlice}).
 */
class DdpUpperLayerHooksTest {
  /** Refuses opcode 0xC; records what it is asked and told. */
  private static final class Refusing implements DdpStreamListener {
    final List<String> events = new ArrayList<>();

    @Override
    public boolean acceptTagged(int rsvdUlp, Ulpdu segment) {
      return true;
    }

    @Override
    public boolean acceptUntagged(int qn, long rsvdUlp, Ulpdu segment) {
      int opcode = (int) (rsvdUlp >>> 32) & 0x0F;
      events.add("asked qn=" + qn + " opcode=" + opcode + " length=" + segment.length());
      return opcode != 0xC;
    }

    @Override
    public void onTaggedMessage(int rsvdUlp, int stag, long to, long length) {
      events.add("tagged");
    }

    @Override
    public void onUntaggedMessage(int qn, int msn, long rsvdUlp, int length, long bufferId) {
      events.add("delivered msn=" + msn + " length=" + length);
    }

    @Override
    public void onControlMessage(int qn, int msn, long rsvdUlp, ByteBuf message) {
      events.add("control");
    }

    @Override
    public void onDdpError(DdpError error, Ulpdu segment, int headerLength) {
      events.add("error " + error);
    }

    @Override
    public void onMpaError(MpaException error) {
      events.add("mpa error");
    }

    @Override
    public void onInputClosed() {
    }
  }

  private StagTable table;
  private ProtectionDomain pd;
  private EmbeddedChannel sender;
  private FpduFramer framer;
  private EmbeddedChannel receiver;
  private final Refusing listener = new Refusing();

  @BeforeEach
  void setUp() {
    table = new StagTable(4, new SplittableRandom(17), Duration.ofMillis(200));
    pd = table.newProtectionDomain();
    sender = new EmbeddedChannel(new io.netty.channel.ChannelInboundHandlerAdapter());
    framer = new FpduFramer(sender.pipeline().firstContext(), false, false, 1024);
  }

  @AfterEach
  void tearDown() {
    sender.finishAndReleaseAll();
    if (receiver != null) {
      receiver.finishAndReleaseAll();
    }
    pd.close();
  }

  private DdpStream receivingStream(DdpStreamListener l) {
    FramedStream end = FramedStream.builder().build(false, pd, l);
    receiver = end.channel;
    return end.stream;
  }

  /** Frames {@code ulpdu} and feeds it to the receiver. */
  private void deliver(String hex) {
    ByteBuf ulpdu = Unpooled.wrappedBuffer(io.netty.buffer.ByteBufUtil.decodeHexDump(
        hex.replaceAll("[\\s|]", "")));
    framer.write(ulpdu, null);
    framer.flush();
    receiver.writeInbound(Unpooled.wrappedBuffer(Outbound.drain(sender)));
  }

  @Test
  void anUntaggedSegmentTheUpperLayerRefusesIsNotPlacedAndStopsTheStream() {
    DdpStream stream = receivingStream(listener);
    ByteBuf posted = Unpooled.buffer(16).writeZero(16);
    try {
      UntaggedReceiveQueue q = stream.enableReceiveQueue(0, 2, 1);
      q.post(posted, 0, 16, 1);
      q.post(posted, 8, 8, 2);
      stream.start();
      deliver("41 4c 00000000 00000000 00000001 00000000 | 1111111111111111");
      deliver("41 43 00000000 00000000 00000001 00000000 | 2222222222222222");
      assertEquals(List.of("asked qn=0 opcode=12 length=26"), listener.events,
          "refused: nothing delivered, no DDP error, the next segment dropped unasked");
      assertTrue(stream.isErroneous());
      assertEquals(null, stream.error());
      assertArrayEquals(new byte[16], io.netty.buffer.ByteBufUtil.getBytes(posted),
          "nothing placed");
      assertEquals(0, q.placedOctets());
    } finally {
      posted.release();
    }
  }

  @Test
  void theUpperLayerIsAskedOnlyAfterDdpsOwnChecksPassed() {
    DdpStream stream = receivingStream(listener);
    stream.enableReceiveQueue(0, 1, 1); // nothing posted
    stream.start();
    deliver("41 4c 00000000 00000000 00000001 00000000 | 1111111111111111");
    assertEquals(List.of("error INVALID_MSN_NO_BUFFER"), listener.events);
  }

  @Test
  void aStreamBuiltWithoutAListenerTakesOneBeforeItStarts() {
    DdpStream stream = receivingStream(null);
    assertSame(receiver, stream.channel());
    IllegalStateException e = assertThrows(IllegalStateException.class, stream::start);
    assertTrue(e.getMessage().contains("setListener"), e.getMessage());
    stream.setListener(listener);
    stream.enableReceiveQueue(0, 1, 1).post(Unpooled.EMPTY_BUFFER, 0, 0, 5);
    stream.start();
    assertThrows(IllegalStateException.class, () -> stream.setListener(listener));
    deliver("41 43 00000000 00000000 00000001 00000000");
    assertEquals(List.of("asked qn=0 opcode=3 length=18", "delivered msn=1 length=0"),
        listener.events);
  }

  @Test
  void aRegionSlicesItsMemoryOnlyUnderAPin() {
    ByteBuf memory = Unpooled.directBuffer(64);
    try (MemoryRegion r = pd.register(memory, LOCAL_WRITE | REMOTE_READ,
        RegionOptions.defaults().baseTo(0x1000))) {
      memory.setBytes(10, new byte[] {1, 2, 3, 4});
      assertThrows(IllegalStateException.class, () -> r.retainedSlice(0x100a, 4));
      assertTrue(r.tryPin());
      ByteBuf slice = r.retainedSlice(0x100a, 4);
      assertArrayEquals(new byte[] {1, 2, 3, 4}, io.netty.buffer.ByteBufUtil.getBytes(slice));
      assertThrows(IndexOutOfBoundsException.class, () -> r.retainedSlice(0x1000 + 62, 4));
      memory.release(); // the caller's reference; the region and the slice keep the memory
      slice.release();
      r.unpin();
      assertEquals(1, memory.refCnt(), "only the region's reference is left");
    }
    assertEquals(0, memory.refCnt(), "closing the region released the memory");
  }
}
