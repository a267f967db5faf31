package io.iwarp4j.ddp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.mpa.FpduDeframer;
import io.iwarp4j.mpa.FpduFramer;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.mpa.UlpduListener;
import io.iwarp4j.testing.Outbound;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Buffer replenishment is one hook per socket read ({@link DdpStreamListener#beforeReadBatch}),
 * run before any segment of the read is validated. Buffers the upper layer posts in the hook are
 * found by the read's Sends (the verbs race: a postRecv that returned before the peer's Send
 * arrived). From inside validation there is one more call up, only for a new message that finds
 * no buffer ({@link DdpStreamListener#receiveBufferNeeded}: a shared receive queue's receive is
 * taken then); a listener that posts nothing there gets "no buffer available". Each inbound
 * {@code writeInbound} is one read.
 */
class DdpReadBatchHookTest {
  private static final UlpduListener NONE = new UlpduListener() {
    @Override
    public void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu) {
      throw new AssertionError("not started");
    }

    @Override
    public void onMpaError(ChannelHandlerContext ctx, MpaException error) {
      throw new AssertionError(error);
    }

    @Override
    public void onInputClosed(ChannelHandlerContext ctx) {
    }
  };

  /** Records the hook and what the stream hands up, in order; may post buffers in the hook. */
  private static final class Recording implements DdpStreamListener {
    final List<String> events = new ArrayList<>();
    /** Posted into queue 0 on the next hook call, then cleared. */
    int postOnNextBatch;
    UntaggedReceiveQueue queue;
    ByteBuf memory;
    long nextBufferId = 100;
    /** Whether {@link #receiveBufferNeeded} is recorded (the tests of the shared-pool call). */
    boolean recordNeeded;
    /** Posted into queue 0 by the next calls of {@link #receiveBufferNeeded}, one per call. */
    int postWhenNeeded;

    @Override
    public void receiveBufferNeeded(int qn) {
      if (recordNeeded) {
        events.add("needed qn=" + qn + " posted=" + queue.postedCount());
      }
      if (postWhenNeeded > 0) {
        postWhenNeeded--;
        queue.post(memory, 0, 16, nextBufferId++);
      }
    }

    @Override
    public void beforeReadBatch() {
      events.add("batch");
      for (; postOnNextBatch > 0; postOnNextBatch--) {
        queue.post(memory, 0, 16, nextBufferId++);
      }
    }

    @Override
    public boolean acceptTagged(int rsvdUlp, Ulpdu segment) {
      return true;
    }

    @Override
    public boolean acceptUntagged(int qn, long rsvdUlp, Ulpdu segment) {
      events.add("validated msn=" + Integer.toUnsignedString(UntaggedHeader.msn(segment)));
      return true;
    }

    @Override
    public void onTaggedMessage(int rsvdUlp, int stag, long to, long length) {
      events.add("tagged");
    }

    @Override
    public void onUntaggedMessage(int qn, int msn, long rsvdUlp, int length, long bufferId) {
      events.add("delivered msn=" + msn + " buffer=" + bufferId);
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

  private ProtectionDomain pd;
  private EmbeddedChannel sender;
  private FpduFramer framer;
  private EmbeddedChannel receiver;
  private DdpStream stream;
  private final Recording listener = new Recording();
  private final ByteBuf memory = Unpooled.buffer(16).writeZero(16);

  @BeforeEach
  void setUp() {
    StagTable table = new StagTable(4, new SplittableRandom(5), Duration.ofMillis(200));
    pd = table.newProtectionDomain();
    sender = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    framer = new FpduFramer(sender.pipeline().firstContext(), false, false, 1024);
    FpduDeframer deframer = new FpduDeframer(false, false, NONE);
    receiver = new EmbeddedChannel(deframer);
    FpduFramer receiverFramer =
        new FpduFramer(receiver.pipeline().context(deframer), false, false, 1024);
    stream = new DdpStream(receiver, receiverFramer, deframer, null, false, pd, listener);
    listener.queue = stream.enableReceiveQueue(0, 8, 1);
    listener.memory = memory;
    stream.start();
  }

  @AfterEach
  void tearDown() {
    sender.finishAndReleaseAll();
    receiver.finishAndReleaseAll();
    memory.release();
    pd.close();
  }

  /** Frames a 4-octet Send with {@code msn} (QN 0, L=1) into the sender's output. */
  private void send(int msn) {
    String hex = "41 43 00000000 00000000 " + String.format("%08x", msn) + " 00000000 | 01020304";
    framer.write(Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex.replaceAll("[\\s|]", ""))),
        null);
  }

  /** Everything framed so far, as one read (one channelRead) of the receiver. */
  private void readAll() {
    framer.flush();
    receiver.writeInbound(Unpooled.wrappedBuffer(Outbound.drain(sender)));
  }

  @Test
  void theHookRunsOncePerReadBeforeAnySegmentOfIt() {
    for (int i = 0; i < 3; i++) {
      listener.queue.post(memory, 0, 16, i);
    }
    send(1);
    send(2);
    send(3);
    readAll();
    assertEquals(List.of("batch",
        "validated msn=1", "delivered msn=1 buffer=0",
        "validated msn=2", "delivered msn=2 buffer=1",
        "validated msn=3", "delivered msn=3 buffer=2"), listener.events,
        "three FPDUs in one read: the hook once, before the first is validated");
  }

  @Test
  void anFpduSplitOverTwoReadsSeesTheHookOnEach() {
    listener.queue.post(memory, 0, 16, 7);
    send(1);
    framer.flush();
    byte[] wire = Outbound.drain(sender);
    receiver.writeInbound(Unpooled.wrappedBuffer(wire, 0, 10));
    receiver.writeInbound(Unpooled.wrappedBuffer(wire, 10, wire.length - 10));
    assertEquals(List.of("batch", "batch", "validated msn=1", "delivered msn=1 buffer=7"),
        listener.events);
  }

  @Test
  void aSendWithNoBufferIsRefusedWithoutAnotherCallUp() {
    send(1);
    readAll();
    assertEquals(List.of("batch", "error INVALID_MSN_NO_BUFFER"), listener.events,
        "validation consults the queue only: no call back up before the error");
  }

  @Test
  void buffersPostedInTheHookAreFoundByTheReadsSends() {
    // As a verbs receive posted on another thread, handed over by the hook: nothing is posted
    // before the read, one buffer in the hook.
    listener.postOnNextBatch = 1;
    send(1);
    send(2);
    readAll();
    assertEquals(List.of("batch", "validated msn=1", "delivered msn=1 buffer=100",
        "error INVALID_MSN_NO_BUFFER"), listener.events,
        "the hook's buffer takes the first Send; the second finds none and nobody is asked again");
  }

  @Test
  void aNewMessageWithNoBufferAsksOnceAndTakesWhatIsPostedThen() {
    // A shared receive queue: nothing is handed over ahead, one buffer is given per message.
    listener.recordNeeded = true;
    listener.postWhenNeeded = 2;
    send(1);
    send(2);
    send(3);
    readAll();
    assertEquals(List.of("batch",
        "needed qn=0 posted=0", "validated msn=1", "delivered msn=1 buffer=100",
        "needed qn=0 posted=0", "validated msn=2", "delivered msn=2 buffer=101",
        "needed qn=0 posted=0", "error INVALID_MSN_NO_BUFFER"), listener.events,
        "asked once per message that finds no buffer; the third gets none: no buffer available");
  }

  @Test
  void aPostedBufferIsUsedWithoutAsking() {
    listener.recordNeeded = true;
    listener.queue.post(memory, 0, 16, 5);
    send(1);
    send(3); // a wrong MSN finds no buffer either, but is not a new message: not asked
    readAll();
    assertEquals(List.of("batch", "validated msn=1", "delivered msn=1 buffer=5",
        "error INVALID_MSN_RANGE"), listener.events);
  }

  @Test
  void anErroneousStreamRunsNoHook() {
    send(1);
    readAll();
    listener.events.clear();
    listener.postOnNextBatch = 1;
    send(2);
    readAll();
    assertEquals(List.of(), listener.events, "after the first error nothing is asked or placed");
  }
}
