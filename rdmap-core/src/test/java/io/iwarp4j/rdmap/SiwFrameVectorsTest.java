package io.iwarp4j.rdmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.DdpSegmenter;
import io.iwarp4j.ddp.GatherList;
import io.iwarp4j.ddp.UntaggedDispatcher;
import io.iwarp4j.ddp.testing.RecordingSegmentWriter;
import io.iwarp4j.ddp.testing.RecordingUntaggedListener;
import io.iwarp4j.ddp.testing.RecordingUntaggedListener.Delivery;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.testing.Hex;
import io.iwarp4j.wire.DdpControl;
import io.iwarp4j.wire.RdmapControl;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.ReadRequestHeader;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Real frames captured between rping and Linux siw (docs/interop.md, siw findings §5-§6; the
 * octets are the constants below): each ULPDU (without MPA length, PAD and CRC) is decoded field by
 * field, from a plain buffer and from a split received-segment view, and re-encoded through
 * {@link DdpSegmenter} to the identical octets.
 */
class SiwFrameVectorsTest {
  private static final int MULPDU = 1500;

  /** rping's 64-octet ping text, "rdma-ping-0: ABC...qr\0", as siw wrote and read it. */
  private static final String PING_0 = "72646d612d70696e672d303a20414243"
      + "4445464748494a4b4c4d4e4f50515253" + "5455565758595a5b5c5d5e5f60616263"
      + "6465666768696a6b6c6d6e6f70717200";

  /** Host -> siw, ping 0: Send (QN 0, MSN 1) of rping_rdma_info{buf 0x10000, rkey 0xc0ffee, 64}. */
  private static final String SEND = "41 43 00000000 00000000 00000001 00000000"
      + "| 0000000000010000 00c0ffee 00000040";
  /** siw -> host, ping 0: RDMA Read Request (QN 1, MSN 1). */
  private static final String READ_REQUEST = "41 41 00000000 00000001 00000001 00000000"
      + "| 11fe7900 000056291da5b130 00000040 00c0ffee 0000000000010000";
  /** Host -> siw: the Read Response to it, tagged to the request's sink STag/TO. */
  private static final String READ_RESPONSE = "c1 42 11fe7900 000056291da5b130 |" + PING_0;
  /** siw -> host: RDMA Write of the echo to the advertised buffer. */
  private static final String WRITE = "c1 40 00beef01 0000000000020000 |" + PING_0;
  /** siw as initiator -> host (§6): its first Send, rping_rdma_info{0x55a0cbb33460, 0x82e37f00}. */
  private static final String SIW_SEND = "41 43 00000000 00000000 00000001 00000000"
      + "| 000055a0cbb33460 82e37f00 00000040";
  /** RFC 6581 Write-RTR as siw accepts it, and siw's answer to a Read-RTR (§5). */
  private static final String WRITE_RTR = "c1 40 00000000 0000000000000000";
  private static final String READ_RTR_RESPONSE = "c1 42 00000000 0000000000000000";

  private static ByteBuf buf(String hex) {
    return Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex.replaceAll("[\\s|]", "")));
  }

  /** A received-segment view of {@code wire}, cut in three pieces (inside header fields). */
  private static Ulpdu split(ByteBuf wire) {
    Ulpdu u = new Ulpdu(3);
    int len = wire.readableBytes();
    int a = Math.min(5, len);
    int b = Math.min(21, len);
    u.addPiece(wire.slice(0, a), 0, a);
    u.addPiece(wire.slice(a, b - a), 0, b - a);
    u.addPiece(wire.slice(b, len - b), 0, len - b);
    return u;
  }

  /** Sends one untagged message on a fresh stream (so MSN 1) and returns its only ULPDU. */
  private static String reencodeUntagged(long rsvdUlp, int qn, ByteBuf rdmapHeader,
      ByteBuf payload) {
    RecordingSegmentWriter out = new RecordingSegmentWriter(MULPDU);
    try {
      DdpSegmenter segmenter = new DdpSegmenter(out, ByteBufAllocator.DEFAULT);
      GatherList list = payload == null ? null : new GatherList().add(payload);
      assertEquals(1, segmenter.sendUntagged(rsvdUlp, qn, rdmapHeader, list));
      assertEquals(1, out.segments.size(), "one segment");
      return out.segments.get(0).hexDump();
    } finally {
      out.releaseAll();
    }
  }

  /** Sends one tagged message and returns its only ULPDU. */
  private static String reencodeTagged(int rsvdUlp, int stag, long to, ByteBuf payload) {
    RecordingSegmentWriter out = new RecordingSegmentWriter(MULPDU);
    try {
      DdpSegmenter segmenter = new DdpSegmenter(out, ByteBufAllocator.DEFAULT);
      segmenter.sendTagged(rsvdUlp, stag, to,
          payload == null ? null : new GatherList().add(payload));
      assertEquals(1, out.segments.size(), "one segment");
      return out.segments.get(0).hexDump();
    } finally {
      out.releaseAll();
    }
  }

  @Test
  void rpingSend() {
    ByteBuf wire = buf(SEND);
    try {
      assertEquals(34, wire.readableBytes());
      int ctl = DdpControl.get(wire, 0);
      assertFalse(DdpControl.isTagged(ctl));
      assertTrue(DdpControl.isLast(ctl));
      assertEquals(1, DdpControl.version(ctl));
      int rdmap = RdmapControl.get(wire, 0);
      assertEquals(1, RdmapControl.version(rdmap));
      assertEquals(RdmapOpcode.SEND, RdmapOpcode.fromCode(RdmapControl.opcode(rdmap)));
      assertEquals(0, RdmapControl.invalidateStag(wire, 0));
      assertEquals(RdmapOpcode.SEND.queueNumber(), UntaggedHeader.queueNumber(wire, 0));
      assertEquals(1, UntaggedHeader.msn(wire, 0));
      assertEquals(0, UntaggedHeader.messageOffset(wire, 0));

      Ulpdu seg = split(wire);
      assertEquals(0x43_0000_0000L, UntaggedHeader.rsvdUlp(seg));
      assertEquals(0x10000L, seg.getLong(18), "rping_rdma_info.buf");
      assertEquals(0x00c0ffee, seg.getInt(26), "rping_rdma_info.rkey");
      assertEquals(64, seg.getInt(30), "rping_rdma_info.size");

      ByteBuf payload = wire.slice(UntaggedHeader.LENGTH, 16);
      assertEquals(Hex.compact(SEND), reencodeUntagged(
          RdmapControl.untaggedRsvdUlp(RdmapOpcode.SEND, 0), 0, null, payload));
    } finally {
      wire.release();
    }
  }

  @Test
  void siwInitiatorSend() {
    ByteBuf wire = buf(SIW_SEND);
    try {
      Ulpdu seg = split(wire);
      assertEquals(0x43, RdmapControl.get(seg));
      assertEquals(0, UntaggedHeader.queueNumber(seg));
      assertEquals(1, UntaggedHeader.msn(seg));
      assertEquals(0x55a0cbb33460L, seg.getLong(18));
      assertEquals(0x82e37f00, seg.getInt(26));
      assertEquals(Hex.compact(SIW_SEND), reencodeUntagged(0x43_0000_0000L, 0, null,
          wire.slice(UntaggedHeader.LENGTH, 16)));
    } finally {
      wire.release();
    }
  }

  @Test
  void rpingReadRequestWithIts28OctetHeader() {
    ByteBuf wire = buf(READ_REQUEST);
    try {
      assertEquals(46, wire.readableBytes());
      assertEquals(0x41, DdpControl.get(wire, 0));
      assertEquals(RdmapOpcode.RDMA_READ_REQUEST,
          RdmapOpcode.fromCode(RdmapControl.opcode(RdmapControl.get(wire, 0))));
      assertEquals(1, UntaggedHeader.queueNumber(wire, 0));
      assertEquals(1, UntaggedHeader.msn(wire, 0));
      assertEquals(0, UntaggedHeader.messageOffset(wire, 0));
      assertEquals(0x11fe7900, ReadRequestHeader.sinkStag(wire, 0));
      assertEquals(0x56291da5b130L, ReadRequestHeader.sinkTo(wire, 0));
      assertEquals(64, ReadRequestHeader.readSize(wire, 0));
      assertEquals(0x00c0ffee, ReadRequestHeader.srcStag(wire, 0));
      assertEquals(0x10000L, ReadRequestHeader.srcTo(wire, 0));

      Ulpdu seg = split(wire); // cut inside the SinkTO
      assertEquals(0x11fe7900, ReadRequestHeader.sinkStag(seg));
      assertEquals(0x56291da5b130L, ReadRequestHeader.sinkTo(seg));
      assertEquals(64, ReadRequestHeader.readSize(seg));
      assertEquals(0x00c0ffee, ReadRequestHeader.srcStag(seg));
      assertEquals(0x10000L, ReadRequestHeader.srcTo(seg));

      ByteBuf rdmapHeader = Unpooled.buffer(ReadRequestHeader.LENGTH);
      try {
        ReadRequestHeader.write(rdmapHeader, 0x11fe7900, 0x56291da5b130L, 64, 0x00c0ffee,
            0x10000L);
        assertEquals(ReadRequestHeader.LENGTH, rdmapHeader.readableBytes());
        assertEquals(Hex.compact(READ_REQUEST), reencodeUntagged(
            RdmapControl.untaggedRsvdUlp(RdmapOpcode.RDMA_READ_REQUEST, 0),
            RdmapOpcode.RDMA_READ_REQUEST.queueNumber(), rdmapHeader, null));
      } finally {
        rdmapHeader.release();
      }
    } finally {
      wire.release();
    }
  }

  @Test
  void readResponseIsTaggedToTheRequestsSinkStagAndTo() {
    ByteBuf request = buf(READ_REQUEST);
    ByteBuf wire = buf(READ_RESPONSE);
    try {
      assertEquals(78, wire.readableBytes());
      int ctl = DdpControl.get(wire, 0);
      assertTrue(DdpControl.isTagged(ctl));
      assertTrue(DdpControl.isLast(ctl));
      assertEquals(RdmapOpcode.RDMA_READ_RESPONSE,
          RdmapOpcode.fromCode(RdmapControl.opcode(TaggedHeader.rsvdUlp(wire, 0))));
      // RFC 5040 §4.4: SinkSTag and SinkTO are copied from the request into the response.
      assertEquals(ReadRequestHeader.sinkStag(request, 0), TaggedHeader.stag(wire, 0));
      assertEquals(ReadRequestHeader.sinkTo(request, 0), TaggedHeader.taggedOffset(wire, 0));
      assertEquals(ReadRequestHeader.readSize(request, 0),
          wire.readableBytes() - TaggedHeader.LENGTH, "RDMARDSZ octets came back");

      Ulpdu seg = split(wire);
      assertEquals(0x11fe7900, TaggedHeader.stag(seg));
      assertEquals(0x56291da5b130L, TaggedHeader.taggedOffset(seg));

      assertEquals(Hex.compact(READ_RESPONSE), reencodeTagged(
          RdmapControl.encode(RdmapOpcode.RDMA_READ_RESPONSE), 0x11fe7900, 0x56291da5b130L,
          wire.slice(TaggedHeader.LENGTH, 64)));
    } finally {
      wire.release();
      request.release();
    }
  }

  @Test
  void rdmaWrite() {
    ByteBuf wire = buf(WRITE);
    try {
      assertEquals(0xc1, DdpControl.get(wire, 0));
      assertEquals(RdmapOpcode.RDMA_WRITE,
          RdmapOpcode.fromCode(RdmapControl.opcode(RdmapControl.get(wire, 0))));
      assertEquals(0x00beef01, TaggedHeader.stag(wire, 0));
      assertEquals(0x20000L, TaggedHeader.taggedOffset(wire, 0));
      Ulpdu seg = split(wire);
      assertEquals(0x00beef01, TaggedHeader.stag(seg));
      assertEquals(0x20000L, TaggedHeader.taggedOffset(seg));
      assertEquals(Hex.compact(WRITE), reencodeTagged(RdmapControl.encode(RdmapOpcode.RDMA_WRITE),
          0x00beef01, 0x20000L, wire.slice(TaggedHeader.LENGTH, 64)));
    } finally {
      wire.release();
    }
  }

  @Test
  void zeroLengthRtrFrames() {
    assertEquals(Hex.compact(WRITE_RTR),
        reencodeTagged(RdmapControl.encode(RdmapOpcode.RDMA_WRITE), 0, 0, null));
    assertEquals(Hex.compact(READ_RTR_RESPONSE),
        reencodeTagged(RdmapControl.encode(RdmapOpcode.RDMA_READ_RESPONSE), 0, 0, null));
  }

  /** siw's Send and Read Request, received: each lands in the next buffer of its queue. */
  @Test
  void siwUntaggedFramesAreDeliveredByTheDataSink() {
    RecordingUntaggedListener events = new RecordingUntaggedListener();
    UntaggedDispatcher sink = new UntaggedDispatcher(events);
    ByteBuf target = Unpooled.buffer(64).writeZero(64);
    ByteBuf send = buf(SIW_SEND);
    ByteBuf readRequest = buf(READ_REQUEST);
    try {
      sink.enableQueue(0, 1).post(target, 0, 16, 10);
      sink.enableQueue(1, 1).post(target, 16, 28, 11);
      sink.onSegment(split(send));
      sink.onSegment(split(readRequest));
      assertEquals(List.of(new Delivery(0, 1, 16, 0x43_0000_0000L, 10),
          new Delivery(1, 1, 28, 0x41_0000_0000L, 11)), events.deliveries);
      assertEquals(List.of(), events.errors);
      assertArrayEquals(ByteBufUtil.getBytes(send, 18, 16), ByteBufUtil.getBytes(target, 0, 16));
      assertArrayEquals(ByteBufUtil.getBytes(readRequest, 18, 28),
          ByteBufUtil.getBytes(target, 16, 28));
    } finally {
      target.release();
      send.release();
      readRequest.release();
    }
  }
}
