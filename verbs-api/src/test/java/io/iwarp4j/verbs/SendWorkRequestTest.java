package io.iwarp4j.verbs;

import static io.iwarp4j.verbs.WorkRequestOpcode.ATOMIC_CMP_SWAP;
import static io.iwarp4j.verbs.WorkRequestOpcode.ATOMIC_FETCH_ADD;
import static io.iwarp4j.verbs.WorkRequestOpcode.IMMEDIATE_DATA;
import static io.iwarp4j.verbs.WorkRequestOpcode.IMMEDIATE_DATA_WITH_SOLICITED;
import static io.iwarp4j.verbs.WorkRequestOpcode.RDMA_READ;
import static io.iwarp4j.verbs.WorkRequestOpcode.RDMA_WRITE;
import static io.iwarp4j.verbs.WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE;
import static io.iwarp4j.verbs.WorkRequestOpcode.SEND;
import static io.iwarp4j.verbs.WorkRequestOpcode.SEND_WITH_INVALIDATE;
import static io.iwarp4j.verbs.WorkRequestOpcode.SEND_WITH_SOLICITED;
import static io.iwarp4j.verbs.WorkRequestOpcode.SEND_WITH_SOLICITED_INVALIDATE;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SendWorkRequestTest {

  private static final int MAX_SGE = 4;
  private final FakeBuffer buf = new FakeBuffer(1024, 0x77);
  private final ProtectionDomain pd = new ProtectionDomain(null,
      new io.iwarp4j.ddp.mem.StagTable(4).newProtectionDomain());
  private final FastRegisterRegion fastRegion = pd.allocateFastRegisterRegion(64);
  private final MemoryWindow window = pd.allocateMemoryWindow(MemoryWindowType.TYPE_2);
  private final MemoryRegion bindable = pd.allocate(64,
      AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.MW_BIND);
  private final io.netty.buffer.ByteBuf direct =
      io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(64, 64);

  @org.junit.jupiter.api.AfterEach
  void releaseTheDirectBuffer() {
    pd.closeAll();
    direct.release();
  }

  private SendWorkRequest wr() {
    return new SendWorkRequest(MAX_SGE).wrId(42);
  }

  private static String problem(SendWorkRequest wr, int maxSge) {
    return assertThrows(IllegalArgumentException.class, () -> wr.validate(maxSge)).getMessage();
  }

  /** A work request each opcode accepts. */
  private SendWorkRequest validFor(WorkRequestOpcode op) {
    SendWorkRequest wr = wr().opcode(op).flags(SendFlags.SIGNALED);
    if (op.sendsLocalData() || op == RDMA_READ) {
      wr.addSge(buf, 0, 64);
    }
    if (op.needsRemoteBuffer()) {
      wr.remote(0x1234, 0x1000);
    }
    if (op.carriesInvalidateStag()) {
      wr.invalidateStag(0x99);
    }
    if (op.isAtomic()) {
      wr.localResult(buf, 8);
    }
    if (op == WorkRequestOpcode.LOCAL_INV) {
      wr.invalidateStag(0x99);
    }
    if (op == WorkRequestOpcode.REG_MR) {
      wr.fastRegister(fastRegion, fastRegion.nextStag(), direct, 0, 64, AccessFlags.LOCAL_WRITE);
    }
    if (op == WorkRequestOpcode.BIND_MW) {
      wr.bindMemoryWindow(window, window.nextStag(), bindable, 0, 64, AccessFlags.REMOTE_WRITE);
    }
    return wr;
  }

  @ParameterizedTest
  @EnumSource(WorkRequestOpcode.class)
  void aCompleteWorkRequestOfEachOpcodeValidates(WorkRequestOpcode op) {
    assertDoesNotThrow(() -> validFor(op).validate(MAX_SGE));
  }

  @Test
  void missingOpcode() {
    assertEquals("send work request (wrId 42): opcode is not set", problem(wr(), MAX_SGE));
  }

  @Test
  void unknownFlags() {
    SendWorkRequest wr = validFor(SEND).flags(SendFlags.SIGNALED | 0x40);
    assertEquals("SEND work request (wrId 42): unknown send flags 0x40"
        + " (known: SIGNALED, SOLICITED, FENCE, INLINE)", problem(wr, MAX_SGE));
  }

  @Test
  void solicitedFlagOnlyWhereAPeerReceiveIsConsumed() {
    for (WorkRequestOpcode op : new WorkRequestOpcode[] {RDMA_WRITE, RDMA_READ,
        ATOMIC_FETCH_ADD, ATOMIC_CMP_SWAP}) {
      SendWorkRequest wr = validFor(op).flags(SendFlags.SOLICITED);
      assertEquals(op + " work request (wrId 42): the SOLICITED flag is only for messages that"
          + " land in a peer receive (Send, Immediate Data, RDMA Write with Immediate)",
          problem(wr, MAX_SGE));
    }
    for (WorkRequestOpcode op : new WorkRequestOpcode[] {SEND, SEND_WITH_INVALIDATE,
        IMMEDIATE_DATA, RDMA_WRITE_WITH_IMMEDIATE}) {
      SendWorkRequest wr = validFor(op).flags(SendFlags.SOLICITED | SendFlags.FENCE);
      assertDoesNotThrow(() -> wr.validate(MAX_SGE), op.toString());
      assertTrue(wr.solicitsEvent(), op.toString());
    }
  }

  @Test
  void solicitsEventFromOpcodeOrFlag() {
    assertFalse(validFor(SEND).solicitsEvent());
    assertTrue(validFor(SEND_WITH_SOLICITED).solicitsEvent());
    assertTrue(validFor(SEND_WITH_SOLICITED_INVALIDATE).solicitsEvent());
    assertTrue(validFor(IMMEDIATE_DATA_WITH_SOLICITED).solicitsEvent());
    assertTrue(validFor(SEND).flags(SendFlags.SOLICITED).solicitsEvent());
    assertFalse(wr().solicitsEvent());
  }

  @Test
  void rdmaReadNeedsExactlyOneSge() {
    SendWorkRequest none = wr().opcode(RDMA_READ).remote(1, 0);
    assertEquals("RDMA_READ work request (wrId 42): needs exactly one SGE (the local sink of"
        + " the Read), has 0", problem(none, MAX_SGE));
    SendWorkRequest two = validFor(RDMA_READ).addSge(buf, 64, 64);
    assertEquals("RDMA_READ work request (wrId 42): needs exactly one SGE (the local sink of"
        + " the Read), has 2", problem(two, MAX_SGE));
  }

  @Test
  void tooManySgesForTheQueuePair() {
    SendWorkRequest wr = validFor(SEND).addSge(buf, 0, 1).addSge(buf, 0, 1);
    assertEquals("SEND work request (wrId 42): 3 SGEs exceed the queue pair's maximum of 2",
        problem(wr, 2));
    assertDoesNotThrow(() -> wr.validate(3));
    assertEquals("maxSge -1 is negative", problem(wr, -1));
  }

  @Test
  void messageLongerThanRdmapAllows() {
    FakeBuffer huge = new FakeBuffer(SendWorkRequest.MAX_MESSAGE_LENGTH, 1);
    SendWorkRequest wr = wr().opcode(RDMA_WRITE).remote(1, 0).addSge(huge, 0, huge.length())
        .addSge(buf, 0, 1);
    assertEquals("RDMA_WRITE work request (wrId 42): message length 4294967296 exceeds the"
        + " RDMAP maximum of 4294967295 octets", problem(wr, MAX_SGE));
  }

  @Test
  void remoteOperationsNeedARemoteStag() {
    for (WorkRequestOpcode op : WorkRequestOpcode.values()) {
      if (!op.needsRemoteBuffer()) {
        continue;
      }
      SendWorkRequest wr = wr().opcode(op);
      if (op.sendsLocalData() || op == RDMA_READ) {
        wr.addSge(buf, 0, 8);
      }
      if (op.isAtomic()) {
        wr.localResult(buf, 0);
      }
      assertEquals(op + " work request (wrId 42): needs a remote STag and address: call"
          + " remote(stag, address)", problem(wr, MAX_SGE));
    }
  }

  @Test
  void sendWithInvalidateNeedsAnStagToInvalidate() {
    for (WorkRequestOpcode op : new WorkRequestOpcode[] {SEND_WITH_INVALIDATE,
        SEND_WITH_SOLICITED_INVALIDATE}) {
      SendWorkRequest wr = wr().opcode(op).addSge(buf, 0, 8);
      assertEquals(op + " work request (wrId 42): needs the STag to invalidate: call"
          + " invalidateStag(stag)", problem(wr, MAX_SGE));
    }
  }

  @Test
  void atomicsTakeAnyRemoteAddress() {
    // RFC 7306 requires the target's memory address to be aligned, which only the responder
    // knows: a region over memory at an odd base aligns odd addresses.
    for (long address : new long[] {0x1004, 0x1003, 0x1001}) {
      SendWorkRequest wr = validFor(ATOMIC_FETCH_ADD).remote(7, address);
      assertDoesNotThrow(() -> wr.validate(MAX_SGE), "remote address 0x"
          + Long.toHexString(address));
    }
  }

  @Test
  void atomicsNeedALocalResult() {
    SendWorkRequest wr = wr().opcode(ATOMIC_CMP_SWAP).remote(7, 0x1000);
    assertEquals("ATOMIC_CMP_SWAP work request (wrId 42): needs a local result buffer for the"
        + " 8-octet original value: call localResult(buffer, offset)", problem(wr, MAX_SGE));
  }

  @Test
  void atomicsCarryNoSges() {
    SendWorkRequest wr = validFor(ATOMIC_CMP_SWAP).addSge(buf, 0, 8);
    assertEquals("ATOMIC_CMP_SWAP work request (wrId 42): carries no SGEs (the original value"
        + " goes to the local result buffer), has 1", problem(wr, MAX_SGE));
  }

  @Test
  void immediateDataCarriesNoSges() {
    SendWorkRequest wr = validFor(IMMEDIATE_DATA).addSge(buf, 0, 8);
    assertEquals("IMMEDIATE_DATA work request (wrId 42): carries no SGEs (its payload is the"
        + " 8-octet immediate data), has 1", problem(wr, MAX_SGE));
    // RDMA Write with Immediate carries the Write's data
    assertDoesNotThrow(() -> validFor(RDMA_WRITE_WITH_IMMEDIATE).validate(MAX_SGE));
  }

  @Test
  void localResultMustFitEightOctets() {
    SendWorkRequest wr = wr();
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> wr.localResult(buf, 1017));
    assertEquals("local result: 8 octets at offset 1017 lie outside the buffer of 1024 octets"
        + " (STag 0x77)", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> wr.localResult(buf, -1));
    assertThrows(IllegalArgumentException.class,
        () -> wr.localResult(new FakeBuffer(4, 1), 0));
    assertThrows(NullPointerException.class, () -> wr.localResult(null, 0));
    wr.localResult(buf, 1016);
    assertEquals(1016, wr.localResultOffset());
  }

  @Test
  void masksDefaultToTheUnmaskedOperation() {
    SendWorkRequest wr = wr();
    assertEquals(0L, wr.addMask(), "Add Mask 0 = one plain 64-bit add (RFC 7306 5.1.1)");
    assertEquals(-1L, wr.compareMask());
    assertEquals(-1L, wr.swapMask());
    wr.addMask(0x8000_0000_8000_0000L).compareMask(0xFF).swapMask(0xF0);
    wr.reset();
    assertEquals(0L, wr.addMask());
    assertEquals(-1L, wr.compareMask());
    assertEquals(-1L, wr.swapMask());
  }

  @Test
  void resetRestoresEveryDefault() {
    SendWorkRequest wr = validFor(ATOMIC_CMP_SWAP).compareData(1).swapData(2).immData(3)
        .invalidateStag(4).addData(5);
    wr.reset();
    assertEquals(0, wr.wrId());
    assertNull(wr.opcode());
    assertEquals(0, wr.flags());
    assertEquals(0, wr.sgl().count());
    assertFalse(wr.hasRemoteStag());
    assertEquals(0, wr.remoteAddress());
    assertFalse(wr.hasInvalidateStag());
    assertEquals(0, wr.compareData());
    assertEquals(0, wr.swapData());
    assertEquals(0, wr.addData());
    assertEquals(0, wr.immData());
    assertNull(wr.localResultBuffer());
    assertEquals(0, wr.localResultOffset());
  }

  @Test
  void copyFromCopiesEveryField() {
    SendWorkRequest source = validFor(ATOMIC_CMP_SWAP).wrId(7).flags(SendFlags.FENCE)
        .remote(0xAB, 0x2000).invalidateStag(0xCD).addData(1).addMask(2).compareData(3)
        .compareMask(4).swapData(5).swapMask(6).immData(8);
    source.sgl().add(buf, 3, 5);
    SendWorkRequest copy = new SendWorkRequest(1).copyFrom(source);
    assertEquals(7, copy.wrId());
    assertEquals(ATOMIC_CMP_SWAP, copy.opcode());
    assertEquals(SendFlags.FENCE, copy.flags());
    assertTrue(copy.hasRemoteStag());
    assertEquals(0xAB, copy.remoteStag());
    assertEquals(0x2000, copy.remoteAddress());
    assertTrue(copy.hasInvalidateStag());
    assertEquals(0xCD, copy.invalidateStag());
    assertEquals(1, copy.addData());
    assertEquals(2, copy.addMask());
    assertEquals(3, copy.compareData());
    assertEquals(4, copy.compareMask());
    assertEquals(5, copy.swapData());
    assertEquals(6, copy.swapMask());
    assertEquals(8, copy.immData());
    assertSame(buf, copy.localResultBuffer());
    assertEquals(8, copy.localResultOffset());
    assertEquals(1, copy.sgl().count());
    assertEquals(3, copy.sgl().offset(0));
    assertEquals(5, copy.sgl().length(0));
    assertThrows(IllegalArgumentException.class,
        () -> new SendWorkRequest(0).copyFrom(source));
  }

  @Test
  void toStringShowsTheFieldsTheOpcodeUses() {
    String s = validFor(ATOMIC_FETCH_ADD).addData(0x10).toString();
    assertTrue(s.contains("opcode=ATOMIC_FETCH_ADD"), s);
    assertTrue(s.contains("addData=0x10"), s);
    assertTrue(s.contains("remote=0x1234@0x1000"), s);
    assertFalse(s.contains("swapData"), s);
    assertTrue(new SendWorkRequest(0).toString().contains("opcode=null"));
  }

  @ParameterizedTest
  @EnumSource(WorkRequestOpcode.class)
  void inlineIsForTheOpcodesThatSendLocalData(WorkRequestOpcode op) {
    SendWorkRequest wr = validFor(op).flags(SendFlags.INLINE);
    if (op.sendsLocalData()) {
      assertDoesNotThrow(() -> wr.validate(MAX_SGE, 64));
    } else {
      String p = assertThrows(IllegalArgumentException.class, () -> wr.validate(MAX_SGE, 64))
          .getMessage();
      assertEquals(op + " work request (wrId 42): the INLINE flag is only for opcodes that send"
          + " local data (the Send family, RDMA Write, RDMA Write with Immediate): there is no"
          + " payload to copy", p);
    }
  }

  @Test
  void inlineDataAboveTheLimitIsRefusedAndTheLimitItselfIsFine() {
    SendWorkRequest wr = wr().opcode(SEND).flags(SendFlags.INLINE).addSge(buf, 0, 50)
        .addSge(buf, 100, 31);
    assertEquals("SEND work request (wrId 42): inline data of 81 octets exceeds the queue pair's"
        + " maxInlineData of 80 (QueuePairConfig.maxInlineData)",
        assertThrows(IllegalArgumentException.class, () -> wr.validate(MAX_SGE, 80))
            .getMessage());
    assertDoesNotThrow(() -> wr.validate(MAX_SGE, 81));
    // Without INLINE the same request has no inline limit.
    assertDoesNotThrow(() -> wr.flags(0).validate(MAX_SGE, 80));
  }

  @Test
  void nullOpcodeIsRejectedWhenSet() {
    assertThrows(NullPointerException.class, () -> wr().opcode(null));
  }

  @Test
  void sendFlagsToString() {
    assertEquals("0", SendFlags.toString(0));
    assertEquals("SIGNALED|SOLICITED|FENCE|INLINE", SendFlags.toString(SendFlags.ALL));
    assertEquals(8, SendFlags.INLINE, "the value of IBV_SEND_INLINE");
    assertEquals("SIGNALED|0x100", SendFlags.toString(SendFlags.SIGNALED | 0x100));
    assertTrue(validFor(SEND).isSignaled());
  }
}
