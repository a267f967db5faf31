package io.iwarp4j.it.example.nvmeof;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.iwarp4j.examples.nvmeof.wire.CmPrivateData;
import io.iwarp4j.examples.nvmeof.wire.ConnectData;
import io.iwarp4j.examples.nvmeof.wire.Cqe;
import io.iwarp4j.examples.nvmeof.wire.IdentifyController;
import io.iwarp4j.examples.nvmeof.wire.IdentifyNamespace;
import io.iwarp4j.examples.nvmeof.wire.NvmeStatus;
import io.iwarp4j.examples.nvmeof.wire.Opcodes;
import io.iwarp4j.examples.nvmeof.wire.Properties;
import io.iwarp4j.examples.nvmeof.wire.Sgl;
import io.iwarp4j.examples.nvmeof.wire.Sqe;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Byte-exact vectors for the NVMe/RDMA wire formats of docs/examples/nvmeof, computed by hand
 * from the NVMe and NVMe over Fabrics layouts (the octets are written out in each test, not
 * produced by the code under test).
 */
class NvmeofWireTest {
  private static final HexFormat HEX = HexFormat.of();

  private static byte[] bytes(ByteBuffer b, int from, int length) {
    byte[] out = new byte[length];
    b.get(from, out);
    return out;
  }

  private static byte[] hex(String s) {
    return HEX.parseHex(s.replace(" ", ""));
  }

  @Test
  void cmRequestAcceptAndRejectPrivateData() {
    assertArrayEquals(hex("0000 0100 2000 1f00" + "00".repeat(24)),
        CmPrivateData.request(1, 32, 31));
    CmPrivateData.Request r = CmPrivateData.parseRequest(hex("0000 0300 8000 7f00"));
    assertEquals(new CmPrivateData.Request(0, 3, 128, 127), r);
    assertEquals(128, r.sendQueueEntries());
    assertThrows(IllegalArgumentException.class, () -> CmPrivateData.parseRequest(new byte[7]));

    assertArrayEquals(hex("0000 2000" + "00".repeat(28)), CmPrivateData.accept(32));
    assertEquals(32, CmPrivateData.acceptCrqsize(hex("0000 2000")));
    assertArrayEquals(hex("0000 0300"), CmPrivateData.reject(CmPrivateData.REJECT_INVALID_QID));
    assertEquals(4, CmPrivateData.rejectStatus(hex("0000 0400")));
    assertEquals(-1, CmPrivateData.rejectStatus(new byte[3]));
  }

  @Test
  void fabricsConnectCommandWithAKeyedSgl() {
    ByteBuffer b = ByteBuffer.allocate(64);
    Sqe sqe = new Sqe().wrap(b, 0).clear();
    sqe.opcode(Opcodes.FABRICS).flags(Sqe.FLAG_SGL).commandId(1).fctype(Opcodes.FCTYPE_CONNECT)
        .connect(0, 31, 5000);
    Sgl.putKeyed(b, Sqe.DPTR, 0x7f0012345000L, 1024, 0x11223344, false);
    assertArrayEquals(hex("7f40 0100 0100 0000" + "00".repeat(16)
        + "0050 3412 007f 0000" + "0004 0044 3322 1140"
        + "0000 0000 1f00 0000" + "8813 0000 0000 0000" + "00".repeat(8)), b.array());
    assertEquals(0, sqe.connectQid());
    assertEquals(31, sqe.connectSqsize());
    assertEquals(5000, sqe.connectKatoMillis());
    assertEquals(1024, Sgl.length(b, Sqe.DPTR));
    assertEquals(0x11223344, Sgl.key(b, Sqe.DPTR));
    assertEquals(Sgl.KEYED_ADDRESS, Sgl.identifier(b, Sqe.DPTR));
  }

  @Test
  void readCommandWithAKeyedSglThatAsksForInvalidation() {
    ByteBuffer b = ByteBuffer.allocate(64);
    Sqe sqe = new Sqe().wrap(b, 0).clear();
    sqe.opcode(Opcodes.IO_READ).flags(Sqe.FLAG_SGL).commandId(0x0203).nsid(1)
        .slba(0x0102030405060708L).blocks(8);
    Sgl.putKeyed(b, Sqe.DPTR, 0x1000, 4096, 0xAABBCCDD, true);
    assertArrayEquals(hex("0240 0302 0100 0000" + "00".repeat(16)
        + "0010 0000 0000 0000" + "0010 00dd ccbb aa4f"
        + "0807 0605 0403 0201" + "0700 0000 0000 0000" + "00".repeat(8)), b.array());
    assertEquals(8, sqe.blocks());
    assertEquals(0x0102030405060708L, sqe.slba());
    assertEquals(4096, Sgl.length(b, Sqe.DPTR));
    assertEquals(0xAABBCCDD, Sgl.key(b, Sqe.DPTR));
    assertEquals(true, Sgl.isKeyed(b, Sqe.DPTR));
    assertThrows(IllegalArgumentException.class,
        () -> Sgl.putKeyed(b, Sqe.DPTR, 0, 1 << 24, 1, false));
  }

  @Test
  void writeCommandWithInCapsuleData() {
    ByteBuffer b = ByteBuffer.allocate(64);
    new Sqe().wrap(b, 0).clear().opcode(Opcodes.IO_WRITE).flags(Sqe.FLAG_SGL).commandId(5)
        .nsid(1).slba(0).blocks(1);
    Sgl.putInline(b, Sqe.DPTR, 512);
    assertArrayEquals(hex("0140 0500 0100 0000" + "00".repeat(16)
        + "0000 0000 0000 0000" + "0002 0000 0000 0001" + "00".repeat(24)), b.array());
    assertEquals(512, Sgl.length(b, Sqe.DPTR));
    assertEquals(false, Sgl.isKeyed(b, Sqe.DPTR));
  }

  @Test
  void keepAliveWithNoData() {
    ByteBuffer b = ByteBuffer.allocate(64);
    new Sqe().wrap(b, 0).clear().opcode(Opcodes.ADMIN_KEEP_ALIVE).flags(Sqe.FLAG_SGL)
        .commandId(9);
    Sgl.putKeyed(b, Sqe.DPTR, 0, 0, 0, false);
    assertArrayEquals(hex("1840 0900" + "00".repeat(35) + "40" + "00".repeat(24)), b.array());
  }

  @Test
  void propertyGetAndSet() {
    ByteBuffer b = ByteBuffer.allocate(64);
    Sqe sqe = new Sqe().wrap(b, 0).clear().opcode(Opcodes.FABRICS).flags(Sqe.FLAG_SGL)
        .commandId(7).fctype(Opcodes.FCTYPE_PROPERTY_GET).property(true, Properties.CAP, 0);
    assertArrayEquals(hex("7f40 0700 0400" + "00".repeat(34) + "0100 0000 0000 0000"
        + "00".repeat(16)), b.array());
    assertEquals(true, sqe.propertyIs64());

    sqe.clear().opcode(Opcodes.FABRICS).commandId(8).fctype(Opcodes.FCTYPE_PROPERTY_SET)
        .property(false, Properties.CC, Properties.CC_ENTRY_SIZES | Properties.CC_ENABLE);
    assertArrayEquals(hex("7f00 0800 0000" + "00".repeat(34) + "0000 0000 1400 0000"
        + "0100 4600 0000 0000" + "00".repeat(8)), b.array());
    assertEquals(Properties.CC, sqe.propertyOffset());
    assertEquals(0x00460001L, sqe.propertyValue());

    assertEquals(0x0000_0020_0F00_007FL, Properties.capability(128, 15));
    assertEquals(128, Properties.maxQueueEntries(0x0000_0020_0F00_007FL));
    assertEquals(7500, Properties.readyTimeoutMillis(0x0000_0020_0F00_007FL));
  }

  @Test
  void completionEntry() {
    ByteBuffer b = ByteBuffer.allocate(16);
    new Cqe().wrap(b, 0).set(1, 2, 0, 1, NvmeStatus.LBA_RANGE | NvmeStatus.DNR);
    assertArrayEquals(hex("0100 0000 0000 0000 0200 0000 0100 0081"), b.array());
    Cqe parsed = new Cqe().wrap(ByteBuffer.wrap(hex("3412 0000 0000 0000 0500 0100 0700 0500")), 0);
    assertEquals(0x1234, parsed.result());
    assertEquals(5, parsed.sqHead());
    assertEquals(1, parsed.sqId());
    assertEquals(7, parsed.commandId());
    assertEquals(NvmeStatus.INVALID_FIELD, parsed.status()); // 0x0005 >> 1, phase bit 1
    assertEquals("LBA out of range (0x080, DNR)",
        NvmeStatus.describe(NvmeStatus.LBA_RANGE | NvmeStatus.DNR));
  }

  @Test
  void fabricsConnectData() {
    ByteBuffer b = ByteBuffer.allocate(1024);
    UUID id = UUID.fromString("00112233-4455-6677-8899-aabbccddeeff");
    ConnectData.write(b, 0, id, ConnectData.ANY_CONTROLLER, "nqn.sub", "nqn.host");
    byte[] expected = new byte[1024];
    System.arraycopy(hex("0011 2233 4455 6677 8899 aabb ccdd eeff ffff"), 0, expected, 0, 18);
    System.arraycopy("nqn.sub".getBytes(), 0, expected, 256, 7);
    System.arraycopy("nqn.host".getBytes(), 0, expected, 512, 8);
    assertArrayEquals(expected, b.array());
    assertEquals(id, ConnectData.hostId(b, 0));
    assertEquals(0xFFFF, ConnectData.cntlid(b, 0));
    assertEquals("nqn.sub", ConnectData.subNqn(b, 0));
    assertEquals("nqn.host", ConnectData.hostNqn(b, 0));
  }

  @Test
  void identifyControllerFieldsAtTheirOffsets() {
    ByteBuffer b = ByteBuffer.allocate(4096);
    IdentifyController c = new IdentifyController(0, "sn1", "model", "0.1", 5, 0x0102,
        Properties.VERSION_1_3, 1, 128, 1, IdentifyController.SGLS_SUPPORTED
        | IdentifyController.SGLS_KEYED | IdentifyController.SGLS_OFFSET, "nqn.sub", 260, 1, 0,
        1);
    c.write(b, 0);
    assertArrayEquals(hex("736e 3120" + "20".repeat(16)), bytes(b, 4, 20)); // SN, space padded
    assertArrayEquals(hex("05 0201 0003 0100"), bytes(b, 77, 7)); // MDTS, CNTLID, VER
    assertArrayEquals(hex("0100"), bytes(b, 320, 2)); // KAS
    assertArrayEquals(hex("6644 8000 0100 0000"), bytes(b, 512, 8)); // SQES CQES MAXCMD NN
    assertArrayEquals(hex("0500 1000"), bytes(b, 536, 4)); // SGLS
    assertArrayEquals("nqn.sub".getBytes(), bytes(b, 768, 7));
    assertArrayEquals(hex("0401 0000 0100 0000 0000 0001"), bytes(b, 1792, 12));
    IdentifyController back = IdentifyController.read(b, 0);
    assertEquals(c, back);
    assertEquals(4096, back.inCapsuleDataSize());
    assertEquals(128 * 1024, back.maxTransferBytes());
  }

  @Test
  void identifyNamespaceFieldsAtTheirOffsets() {
    ByteBuffer b = ByteBuffer.allocate(4096);
    new IdentifyNamespace(0x20000, 0x20000, 0x20000, 0, 9).write(b, 0);
    assertArrayEquals(hex("0000 0200 0000 0000"), bytes(b, 0, 8)); // NSZE
    assertArrayEquals(hex("0000 0200 0000 0000"), bytes(b, 8, 8)); // NCAP
    assertArrayEquals(hex("00 00"), bytes(b, 25, 2)); // NLBAF, FLBAS
    assertArrayEquals(hex("0000 0900"), bytes(b, 128, 4)); // LBAF0: MS 0, LBADS 9
    IdentifyNamespace back = IdentifyNamespace.read(b, 0);
    assertEquals(512, back.blockSize());
    assertEquals(0x20000, back.size());
    ByteBuffer four = ByteBuffer.allocate(4096);
    four.put(26, (byte) 1).put(128 + 4 + 2, (byte) 12); // FLBAS 1, LBAF1 4 KiB
    assertEquals(4096, IdentifyNamespace.read(four, 0).blockSize());
  }
}
