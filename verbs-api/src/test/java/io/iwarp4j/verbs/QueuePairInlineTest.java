package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SendFlags#INLINE} on the queue pair: the payload is copied when the request is posted
 * (the source may change at once), from any {@link LocalBuffer} (its STag is not looked at),
 * within {@link QueuePairCapabilities#maxInlineData()}, and only for opcodes that send local
 * data; a refused post leaves nothing posted.
 */
class QueuePairInlineTest {
  /** The harness's queue pairs get the default limit. */
  private static final int CAP = DeviceConfig.DEFAULT_INLINE_DATA;

  /** Plain heap memory that no protection domain knows: no registration, a made-up STag. */
  private record HeapBuffer(ByteBuf buffer) implements LocalBuffer {
    HeapBuffer(int length) {
      this(Unpooled.wrappedBuffer(new byte[length]));
    }

    @Override
    public long length() {
      return buffer.capacity();
    }

    @Override
    public int stag() {
      return 0x7a7a7a00;
    }
  }

  private static byte[] pattern(int length, int seed) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) (seed + i * 31);
    }
    return b;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  private static byte[] captured(QpHarness h) {
    return Arrays.copyOf(h.ep.lastPayload, h.ep.lastPayloadLength);
  }

  @Test
  void anInlineSendCarriesTheOctetsOfPostTimeThoughTheSourceChangesRightAfter() {
    try (QpHarness h = new QpHarness(8, 8, 16).connected()) {
      h.ep.capturePayload = true;
      byte[] first = pattern(48, 1);
      byte[] second = pattern(CAP - 48, 2);
      h.mr.buffer().setBytes(256, first).setBytes(512, second);
      h.qp.postSend(new SendWorkRequest(2).wrId(1).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED | SendFlags.INLINE)
          .addSge(h.mr, 256, first.length).addSge(h.mr, 512, second.length));
      // The application reuses its buffer as soon as postSend returns.
      h.mr.buffer().setZero(256, first.length).setZero(512, second.length);

      h.loop.runAll();
      assertEquals(1, h.ep.issued);
      assertEquals(FakeEndpoint.SEND, h.ep.kinds[0]);
      assertEquals(CAP, h.ep.lengths[0]);
      assertArrayEquals(concat(first, second), captured(h));
      h.completeSend(h.ep.tokens[0]);
      List<WorkCompletion> wcs = h.sendCompletions();
      assertEquals(1, wcs.size());
      assertTrue(wcs.get(0).isSuccess(), wcs.toString());
      assertEquals(WcOpcode.SEND, wcs.get(0).opcode());
      assertEquals(0, h.qp.outstandingSends());
    }
  }

  @Test
  void anInlineWriteAndWriteWithImmediateCarryTheOctetsOfPostTime() {
    try (QpHarness h = new QpHarness(8, 8, 16).connected()) {
      h.ep.capturePayload = true;
      byte[] data = pattern(40, 9);
      h.mr.buffer().setBytes(64, data);
      h.qp.postSend(new SendWorkRequest(2).wrId(1).opcode(WorkRequestOpcode.RDMA_WRITE)
          .flags(SendFlags.INLINE).remote(0x4400, 0x8000).addSge(h.mr, 64, data.length));
      h.mr.buffer().setZero(64, data.length);
      h.loop.runAll();
      assertEquals(FakeEndpoint.WRITE, h.ep.kinds[0]);
      assertEquals(0x4400, h.ep.lastRemoteStag);
      assertEquals(0x8000, h.ep.lastRemoteTo);
      assertArrayEquals(data, captured(h));

      h.mr.buffer().setBytes(64, data);
      h.qp.postSend(new SendWorkRequest(2).wrId(2)
          .opcode(WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE).flags(SendFlags.INLINE).remote(0x4400, 0x9000).immData(77).addSge(h.mr, 64, 8));
      h.mr.buffer().setZero(64, 8);
      h.loop.runAll();
      assertEquals(FakeEndpoint.WRITE_IMMEDIATE, h.ep.kinds[1]);
      assertEquals(77, h.ep.lastImmediate);
      assertArrayEquals(Arrays.copyOf(data, 8), captured(h));
    }
  }

  @Test
  void anUnregisteredHeapBufferIsAnInlineSource() {
    try (QpHarness h = new QpHarness(8, 8, 16).connected()) {
      h.ep.capturePayload = true;
      HeapBuffer heap = new HeapBuffer(64);
      byte[] data = pattern(64, 5);
      heap.buffer().setBytes(0, data);
      h.qp.postSend(new SendWorkRequest(1).wrId(3).opcode(WorkRequestOpcode.SEND_WITH_SOLICITED)
          .flags(SendFlags.SIGNALED | SendFlags.INLINE).addSge(heap, 0, 64));
      heap.buffer().setZero(0, 64);
      h.loop.runAll();
      assertArrayEquals(data, captured(h));
      h.completeSend(h.ep.tokens[0]);
      List<WorkCompletion> wcs = h.sendCompletions();
      assertTrue(wcs.get(0).isSuccess(), wcs.toString());
      assertEquals(QpState.RTS, h.qp.state());
      assertTrue(h.errors.isEmpty(), h.errors.toString());
    }
  }

  @Test
  void withoutInlineTheSameUnregisteredBufferIsALocalProtectionError() {
    try (QpHarness h = new QpHarness(8, 8, 16).connected()) {
      HeapBuffer heap = new HeapBuffer(64);
      h.qp.postSend(new SendWorkRequest(1).wrId(3).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED).addSge(heap, 0, 64));
      h.loop.runAll();
      assertEquals(0, h.ep.issued);
      List<WorkCompletion> wcs = h.sendCompletions();
      assertEquals(WcStatus.LOC_PROT_ERR, wcs.get(0).status());
    }
  }

  @Test
  void inlineDataAboveTheCapIsRefusedAndNothingIsPosted() {
    try (QpHarness h = new QpHarness(8, 8, 16).connected()) {
      assertEquals(CAP, h.qp.capabilities().maxInlineData());
      SendWorkRequest wr = new SendWorkRequest(2).wrId(4).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.INLINE).addSge(h.mr, 0, 40).addSge(h.mr, 100, CAP - 40 + 1);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> h.qp.postSend(wr));
      assertTrue(e.getMessage().contains("inline data of " + (CAP + 1) + " octets exceeds the"
          + " queue pair's maxInlineData of " + CAP), e.getMessage());
      assertTrue(e.getMessage().contains("wrId 4"), e.getMessage());
      assertEquals(0, h.qp.outstandingSends());
      h.loop.runAll();
      assertEquals(0, h.ep.issued);

      // Exactly the cap is fine.
      h.qp.postSend(wr.reset().wrId(5).opcode(WorkRequestOpcode.SEND).flags(SendFlags.INLINE)
          .addSge(h.mr, 0, CAP));
      h.loop.runAll();
      assertEquals(1, h.ep.issued);
      assertEquals(CAP, h.ep.lengths[0]);
    }
  }

  @Test
  void inlineOnAnOpcodeWithoutLocalDataIsRefused() {
    try (QpHarness h = new QpHarness(8, 8, 16).connected()) {
      SendWorkRequest read = h.read(6, SendFlags.INLINE);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> h.qp.postSend(read));
      assertTrue(e.getMessage().startsWith("RDMA_READ work request (wrId 6): the INLINE flag"),
          e.getMessage());
      SendWorkRequest fetchAdd = new SendWorkRequest(1).wrId(7)
          .opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD).flags(SendFlags.INLINE)
          .remote(0x10, 0x100).localResult(h.mr, 0);
      e = assertThrows(IllegalArgumentException.class, () -> h.qp.postSend(fetchAdd));
      assertTrue(e.getMessage().contains("INLINE"), e.getMessage());
      SendWorkRequest imm = new SendWorkRequest(1).wrId(8)
          .opcode(WorkRequestOpcode.IMMEDIATE_DATA).flags(SendFlags.INLINE).immData(1);
      e = assertThrows(IllegalArgumentException.class, () -> h.qp.postSend(imm));
      assertTrue(e.getMessage().contains("INLINE"), e.getMessage());
      assertEquals(0, h.qp.outstandingSends());
      h.loop.runAll();
      assertEquals(0, h.ep.issued);
    }
  }

  @Test
  void aClosedRegionIsRefusedAtPostAndTheQueueStaysUsable() {
    try (QpHarness h = new QpHarness(2, 8, 16).connected()) {
      MemoryRegion gone = h.pd.allocate(64, AccessFlags.LOCAL_WRITE);
      gone.close();
      SendWorkRequest wr = new SendWorkRequest(1).wrId(9).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.INLINE).addSge(gone, 0, 16);
      for (int i = 0; i < 3; i++) { // more refusals than the queue is deep: nothing is held
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> h.qp.postSend(wr));
        assertTrue(e.getMessage().contains("SGE 0 names a closed memory region"),
            e.getMessage());
      }
      assertEquals(0, h.qp.outstandingSends());
      h.qp.postSend(wr.reset().wrId(10).opcode(WorkRequestOpcode.SEND).flags(SendFlags.INLINE)
          .addSge(h.mr, 0, 16));
      h.qp.postSend(h.send(11, 0));
      h.loop.runAll();
      assertEquals(2, h.ep.issued);
      assertEquals(16, h.ep.lengths[0]);
      assertEquals(QpState.RTS, h.qp.state());
    }
  }

  /**
   * Memory that cannot be read when the payload is copied (here a buffer that refuses; in
   * life a region closed between validation and the copy) does not make postSend throw after the
   * slot was claimed: the work request completes with a local protection error, as a
   * non-inline one naming a closed region does, and the queue's slots all stay usable.
   */
  @Test
  void memoryThatCannotBeReadAtTheCopyFailsTheWorkRequestOnTheLoop() {
    try (QpHarness h = new QpHarness(1, 8, 16).connected()) {
      LocalBuffer gone = new LocalBuffer() {
        @Override
        public ByteBuf buffer() {
          throw new IllegalStateException("memory gone");
        }

        @Override
        public long length() {
          return 32;
        }

        @Override
        public int stag() {
          return 1;
        }
      };
      h.qp.postSend(new SendWorkRequest(1).wrId(12).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED | SendFlags.INLINE).addSge(gone, 0, 16));
      h.loop.runAll();
      assertEquals(0, h.ep.issued);
      List<WorkCompletion> wcs = h.sendCompletions();
      assertEquals(1, wcs.size(), wcs.toString());
      assertEquals(12, wcs.get(0).wrId());
      assertEquals(WcStatus.LOC_PROT_ERR, wcs.get(0).status());
      assertEquals(QpState.ERROR, h.qp.state());
      assertTrue(h.errors.get(0).reason().contains("inline data could not be read"),
          h.errors.toString());
    }
  }

  /**
   * A transport that still holds a slice of an inline payload when its slot comes round again
   * (a failed connection with it in Netty's outbound buffer; Markers, whose FPDUs slice every
   * payload) keeps the octets it holds: the slot takes a new area for the next payload.
   */
  @Test
  void aSlotWhoseInlineOctetsTheTransportStillHoldsIsNotOverwritten() {
    try (QpHarness h = new QpHarness(1, 8, 16).connected()) {
      h.ep.capturePayload = true;
      List<ByteBuf> held = new ArrayList<>();
      h.ep.heldSlices = held;
      byte[][] payloads = {pattern(32, 1), pattern(32, 2), pattern(32, 3), pattern(32, 4)};
      try {
        for (int i = 0; i < payloads.length; i++) {
          h.mr.buffer().setBytes(0, payloads[i]);
          h.qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WorkRequestOpcode.SEND)
              .flags(SendFlags.INLINE).addSge(h.mr, 0, 32));
          h.loop.runAll();
          assertArrayEquals(payloads[i], captured(h), "payload " + i);
          h.completeSend(h.ep.tokens[i]); // retired: its slot is free for the next post
        }
        assertEquals(payloads.length, held.size());
        for (int i = 0; i < payloads.length; i++) {
          byte[] got = new byte[32];
          held.get(i).getBytes(0, got);
          assertArrayEquals(payloads[i], got, "octets the transport held for payload " + i);
        }
      } finally {
        held.forEach(ByteBuf::release);
      }
    }
  }
}
