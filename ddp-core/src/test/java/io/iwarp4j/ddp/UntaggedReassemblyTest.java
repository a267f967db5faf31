package io.iwarp4j.ddp;

import static io.netty.buffer.ByteBufUtil.getBytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.testing.RecordingSegmentWriter;
import io.iwarp4j.ddp.testing.RecordingSegmentWriter.Segment;
import io.iwarp4j.ddp.testing.RecordingUntaggedListener;
import io.iwarp4j.ddp.testing.RecordingUntaggedListener.Delivery;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Placement and Delivery of untagged messages (RFC 5041 §5.2, §5.4): segments cut by
 * {@link DdpSegmenter} are fed, as the zero-copy views MPA would hand up, to an
 * {@link UntaggedDispatcher}; each message must arrive whole, once, in order.
 */
class UntaggedReassemblyTest {
  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

  private RecordingSegmentWriter wire;
  private DdpSegmenter sender;
  private RecordingUntaggedListener listener;
  private UntaggedDispatcher receiver;
  private final List<ByteBuf> buffers = new ArrayList<>();

  @BeforeEach
  void setUp() {
    wire = new RecordingSegmentWriter(64);
    sender = new DdpSegmenter(wire, ALLOC);
    listener = new RecordingUntaggedListener();
    receiver = new UntaggedDispatcher(listener);
  }

  @AfterEach
  void tearDown() {
    wire.releaseAll();
    for (ByteBuf b : buffers) {
      b.release();
    }
  }

  private ByteBuf track(ByteBuf b) {
    buffers.add(b);
    return b;
  }

  private ByteBuf data(int n, Random random) {
    byte[] bytes = new byte[n];
    random.nextBytes(bytes);
    return track(Unpooled.wrappedBuffer(bytes));
  }

  /** Hands every recorded segment to the receiver, in send order, then forgets them. */
  private void transmit() {
    for (Segment s : wire.segments) {
      receiver.onSegment(s.asUlpdu());
    }
    wire.releaseAll();
  }

  @Test
  void aMultiSegmentMessageIsDeliveredOnceOnItsLastSegment() {
    ByteBuf target = track(Unpooled.buffer(300).writeZero(300));
    receiver.enableQueue(0, 2).post(target, 50, 200, 5);
    ByteBuf msg = data(200, new Random(1));
    sender.sendUntagged(0x43_0000_0000L, 0, null, new GatherList().add(msg));
    assertEquals(5, wire.segments.size(), "200 octets at 46 per segment");

    List<Segment> segs = new ArrayList<>(wire.segments);
    for (int i = 0; i < segs.size(); i++) {
      receiver.onSegment(segs.get(i).asUlpdu());
      assertEquals(i == segs.size() - 1 ? 1 : 0, listener.deliveries.size(),
          "delivered only after segment " + i + " if it is the last");
    }
    assertEquals(List.of(new Delivery(0, 1, 200, 0x43_0000_0000L, 5)), listener.deliveries);
    assertArrayEquals(getBytes(msg, 0, 200), getBytes(target, 50, 200));
    assertArrayEquals(new byte[50], getBytes(target, 0, 50), "nothing before the region");
    assertArrayEquals(new byte[50], getBytes(target, 250, 50), "nothing after it");
    assertEquals(0, receiver.queue(0).postedCount(), "the message consumed its buffer");
    assertEquals(2, receiver.queue(0).expectedMsn());
    assertTrue(listener.errors.isEmpty());
  }

  @Test
  void messagesAreDeliveredInSendOrderEachIntoTheNextBufferOfItsQueue() {
    ByteBuf target = track(Unpooled.buffer(1000).writeZero(1000));
    UntaggedReceiveQueue q0 = receiver.enableQueue(0, 4);
    UntaggedReceiveQueue q1 = receiver.enableQueue(1, 4);
    q0.post(target, 0, 100, 100);
    q0.post(target, 100, 100, 101);
    q0.post(target, 200, 100, 102);
    q1.post(target, 500, 100, 200);

    Random random = new Random(2);
    ByteBuf a = data(90, random);
    ByteBuf b = data(10, random);
    ByteBuf c = data(47, random);
    sender.sendUntagged(0x43_0000_0000L, 0, null, new GatherList().add(a));
    sender.sendUntagged(0x41_0000_0000L, 1, null, new GatherList().add(c));
    sender.sendUntagged(0x45_0000_0000L, 0, null, new GatherList().add(b));
    sender.sendUntagged(0x44_CAFE_0001L, 0, null, null); // zero length still takes a buffer
    transmit();

    assertEquals(List.of(
        new Delivery(0, 1, 90, 0x43_0000_0000L, 100),
        new Delivery(1, 1, 47, 0x41_0000_0000L, 200),
        new Delivery(0, 2, 10, 0x45_0000_0000L, 101),
        new Delivery(0, 3, 0, 0x44_CAFE_0001L, 102)), listener.deliveries);
    assertArrayEquals(getBytes(a, 0, 90), getBytes(target, 0, 90));
    assertArrayEquals(getBytes(b, 0, 10), getBytes(target, 100, 10));
    assertArrayEquals(getBytes(c, 0, 47), getBytes(target, 500, 47));
    assertArrayEquals(new byte[90], getBytes(target, 110, 90), "a short message leaves the rest");
    assertEquals(0, q0.postedCount());
    assertTrue(listener.errors.isEmpty());
  }

  @Test
  void anRdmapHeaderIsPartOfTheMessageAtTheSink() {
    ByteBuf target = track(Unpooled.buffer(128).writeZero(128));
    receiver.enableQueue(1, 1).post(target, 0, 128, 9);
    ByteBuf rdmap = track(Unpooled.buffer(28));
    for (int i = 0; i < 28; i++) {
      rdmap.writeByte(i);
    }
    ByteBuf rest = data(70, new Random(3));
    sender.sendUntagged(0x41_0000_0000L, 1, rdmap, new GatherList().add(rest));
    assertEquals(3, wire.segments.size(), "18+28+18 | 18+46 | 18+6");
    transmit();
    assertEquals(List.of(new Delivery(1, 1, 98, 0x41_0000_0000L, 9)), listener.deliveries);
    assertArrayEquals(getBytes(rdmap, 0, 28), getBytes(target, 0, 28));
    assertArrayEquals(getBytes(rest, 0, 70), getBytes(target, 28, 70));
  }

  @Test
  void afterAnRtrTheQueueExpectsMsn2() {
    ByteBuf target = track(Unpooled.buffer(16).writeZero(16));
    UntaggedReceiveQueue q = receiver.enableQueue(0, 1);
    q.post(target, 0, 16, 1);
    q.startAtMsn2();
    sender.startAtMsn2(0);
    sender.sendUntagged(0, 0, null, new GatherList().add(data(4, new Random(4))));
    transmit();
    assertEquals(List.of(new Delivery(0, 2, 4, 0, 1)), listener.deliveries);
    assertThrows(IllegalStateException.class, q::startAtMsn2);
  }

  @Test
  void randomMessagesSurviveSegmentationAndReassembly() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    String why = "seed " + seed;
    int mulpdu = 19 + random.nextInt(200);
    wire = new RecordingSegmentWriter(mulpdu);
    sender = new DdpSegmenter(wire, ALLOC);
    ByteBuf target = track(Unpooled.buffer(64 * 1024).writeZero(64 * 1024));
    UntaggedReceiveQueue[] queues = new UntaggedReceiveQueue[4];
    for (int qn = 0; qn < 4; qn++) {
      queues[qn] = receiver.enableQueue(qn, 8);
    }
    List<Delivery> expected = new ArrayList<>();
    List<byte[]> contents = new ArrayList<>();
    List<Integer> places = new ArrayList<>();
    int[] msn = {1, 1, 1, 1};
    int place = 0;
    long id = 0;
    for (int m = 0; m < 40; m++) {
      int qn = random.nextInt(4);
      int length = random.nextInt(4) == 0 ? 0 : random.nextInt(1500);
      int slack = random.nextInt(20);
      queues[qn].post(target, place, length + slack, ++id);
      byte[] content = new byte[length];
      random.nextBytes(content);
      // Split the message into a random gather list, with the odd empty entry.
      ByteBuf source = track(Unpooled.wrappedBuffer(content));
      GatherList list = new GatherList(1);
      int at = 0;
      do {
        int n = Math.min(length - at, random.nextInt(300));
        list.add(source, at, n);
        at += n;
      } while (at < length);
      long rsvd = random.nextLong() & UntaggedHeader.RSVD_ULP_MAX;
      assertEquals(msn[qn], sender.sendUntagged(rsvd, qn, null, list), why);
      for (Segment s : wire.segments) {
        assertTrue(s.ulpduLength() <= mulpdu, why);
      }
      transmit();
      expected.add(new Delivery(qn, msn[qn]++, length, rsvd, id));
      contents.add(content);
      places.add(place);
      place += length + slack;
    }
    assertEquals(expected, listener.deliveries, why);
    assertTrue(listener.errors.isEmpty(), why);
    for (int m = 0; m < contents.size(); m++) {
      byte[] content = contents.get(m);
      int at = places.get(m);
      assertArrayEquals(content, getBytes(target, at, content.length), why + ", message " + m);
      int end = m + 1 < places.size() ? places.get(m + 1) : place;
      assertArrayEquals(new byte[end - at - content.length],
          getBytes(target, at + content.length, end - at - content.length),
          why + ": the unused rest of buffer " + m + " stays untouched");
    }
  }
}
