package io.iwarp4j.tools.perf;

import static io.iwarp4j.testing.Hex.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Byte-exact vectors of perftest 4.5-0.17's rdma_cm control messages, derived from
 * {@code struct pingpong_dest} (x86-64 layout, fields through htobe32/htobe64 in
 * {@code rdma_write_keys}), {@code exchange_versions}, {@code check_sys_data},
 * {@code check_mtu} and {@code xchg_bw_reports}; and the order of a conversation.
 */
@Timeout(10)
class PerftestExchangeTest {
  private static final PingPongDest SAMPLE = new PingPongDest(0, 0x10, 0x0003, 0x5b70e2,
      0x436c5300, 0x00007f0012345000L,
      hex("82840018 52860000 00000000 00000000"), 0, 0);

  private static final String SAMPLE_HEX =
      "00000000" // lid
      + "00000010" // out_reads
      + "00000003" // qpn
      + "005b70e2" // psn
      + "436c5300" // rkey
      + "00000000" // padding before the 8-aligned vaddr
      + "00007f0012345000" // vaddr
      + "82840018528600000000000000000000" // gid
      + "00000000" // srqn
      + "00000000"; // gid_index

  @Test
  void pingpongDestIs56OctetsBigEndianWithPaddingBeforeVaddr() throws IOException {
    byte[] m = PerftestExchange.encodeDest(SAMPLE);
    assertEquals(56, m.length);
    assertArrayEquals(hex(SAMPLE_HEX), m);
    assertEquals(SAMPLE, PerftestExchange.decodeDest(m));
  }

  @Test
  void decodeReadsEveryFieldAtItsOffset() throws IOException {
    byte[] m = hex("0000000a 00000080 00abcdef 00fedcba ffffff01 deadbeef"
        + " 8000000000000001 00112233445566778899aabbccddeeff 00000007 ffffffff");
    PingPongDest d = PerftestExchange.decodeDest(m);
    assertEquals(10, d.lid());
    assertEquals(128, d.outReads());
    assertEquals(0xabcdef, d.qpn());
    assertEquals(0xfedcba, d.psn());
    assertEquals(0xffffff01, d.rkey());
    assertEquals(0x8000000000000001L, d.vaddr());
    assertArrayEquals(hex("00112233445566778899aabbccddeeff"), d.gid());
    assertEquals(7, d.srqn());
    assertEquals(-1, d.gidIndex());
  }

  @Test
  void shortDestIsAnErrorNotACrash() {
    IOException e = assertThrows(IOException.class,
        () -> PerftestExchange.decodeDest(new byte[16]));
    assertTrue(e.getMessage().contains("16 octets"), e.getMessage());
  }

  @Test
  void versionIsSixteenOctetsNulPadded() {
    assertArrayEquals(hex("362e3036 00000000 00000000 00000000"),
        PerftestExchange.encodeVersion("6.06"));
    assertEquals("6.06", PerftestExchange.decodeVersion(PerftestExchange.encodeVersion("6.06")));
    assertEquals(6.06, PerftestExchange.parseVersion("6.06"), 1e-9);
    assertEquals(5.7, PerftestExchange.parseVersion("5.70-beta"), 1e-9);
    assertEquals(0, PerftestExchange.parseVersion("x"), 0);
  }

  @Test
  void mtuIsTwoOctetsOfText() {
    assertArrayEquals(hex("3300"), PerftestExchange.encodeMtu(3));
    assertEquals(3, PerftestExchange.decodeMtu(hex("3300")));
    assertEquals(5, PerftestExchange.decodeMtu(hex("35")));
    assertEquals(0, PerftestExchange.decodeMtu(hex("ff00")));
    assertThrows(IllegalArgumentException.class, () -> PerftestExchange.encodeMtu(6));
  }

  @Test
  void numbersAreBigEndian() throws IOException {
    assertArrayEquals(hex("00001000"), PerftestExchange.encodeInt(4096));
    assertArrayEquals(hex("0000000000010000"), PerftestExchange.encodeLong(65536));
    // 1.5 = 0x3FF8000000000000
    assertArrayEquals(hex("3ff8000000000000"), PerftestExchange.encodeDouble(1.5));
    assertEquals(1.5, PerftestExchange.decodeDouble(hex("3ff8000000000000")), 0);
    assertEquals(64, PerftestExchange.decodeInt(hex("00000040")));
  }

  /** Two ends over in-memory queues; records what each side sent. */
  private static final class Pipe implements MessageChannel {
    final BlockingQueue<byte[]> in;
    final BlockingQueue<byte[]> out;
    final List<byte[]> sent = new ArrayList<>();

    Pipe(BlockingQueue<byte[]> in, BlockingQueue<byte[]> out) {
      this.in = in;
      this.out = out;
    }

    @Override
    public void send(byte[] message) {
      sent.add(message);
      out.add(message);
    }

    @Override
    public byte[] receive() throws IOException {
      try {
        byte[] m = in.poll(5, TimeUnit.SECONDS);
        if (m == null) {
          throw new IOException("nothing received");
        }
        return m;
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
    }
  }

  @Test
  void conversationClientSendsFirstAndBothSeeTheSameMessages() throws Exception {
    BlockingQueue<byte[]> toServer = new LinkedBlockingQueue<>();
    BlockingQueue<byte[]> toClient = new LinkedBlockingQueue<>();
    Pipe clientPipe = new Pipe(toClient, toServer);
    Pipe serverPipe = new Pipe(toServer, toClient);
    PerftestExchange client = new PerftestExchange(clientPipe, true);
    PerftestExchange server = new PerftestExchange(serverPipe, false);
    BwReport report = new BwReport(65536, 5000, 1234.5, 1000.25, 0.016);
    Object[] serverSaw = new Object[4];
    Thread t = new Thread(() -> {
      try {
        serverSaw[0] = server.exchangeVersions();
        serverSaw[1] = server.exchangeSysData(8192, 64);
        serverSaw[2] = server.handshake(PingPongDest.ZERO);
        serverSaw[3] = server.exchangeBwReports(new BwReport(0, 0, 0, 0, 0));
      } catch (IOException e) {
        serverSaw[0] = e;
      }
    });
    t.start();
    assertEquals("6.06", client.exchangeVersions());
    assertArrayEquals(new int[] {8192, 64}, client.exchangeSysData(4096, 64));
    assertEquals(PingPongDest.ZERO, client.handshake(SAMPLE));
    client.exchangeBwReports(report);
    t.join(5000);
    assertEquals("6.06", serverSaw[0]);
    assertArrayEquals(new int[] {8192, 64}, (int[]) serverSaw[1]);
    assertEquals(SAMPLE, serverSaw[2]);
    assertEquals(report, serverSaw[3]);
    // What the client put on the wire, message by message.
    List<byte[]> c = clientPipe.sent;
    assertEquals(1 + 2 + 1 + 5, c.size());
    assertArrayEquals(PerftestExchange.encodeVersion("6.06"), c.get(0));
    assertArrayEquals(hex("00001000"), c.get(1));
    assertArrayEquals(hex("00000040"), c.get(2));
    assertArrayEquals(hex(SAMPLE_HEX), c.get(3));
    assertArrayEquals(hex("0000000000010000"), c.get(4));
    assertArrayEquals(hex("0000000000001388"), c.get(5));
    assertArrayEquals(PerftestExchange.encodeDouble(1234.5), c.get(6));
    assertArrayEquals(PerftestExchange.encodeDouble(1000.25), c.get(7));
    assertArrayEquals(PerftestExchange.encodeDouble(0.016), c.get(8));
  }

  @Test
  void aPeerOlderThan570IsRefused() {
    BlockingQueue<byte[]> toClient = new LinkedBlockingQueue<>();
    toClient.add(PerftestExchange.encodeVersion("5.60"));
    Pipe pipe = new Pipe(toClient, new LinkedBlockingQueue<>());
    IOException e = assertThrows(IOException.class,
        () -> {
          PerftestExchange x = new PerftestExchange(pipe, true);
          x.exchangeVersions();
          x.checkPeerVersion();
        });
    assertTrue(e.getMessage().contains("5.60"), e.getMessage());
  }

  @Test
  void reportsWithAPre533PeerCarryA32BitIterationCount() throws Exception {
    BlockingQueue<byte[]> toClient = new LinkedBlockingQueue<>();
    toClient.add(PerftestExchange.encodeVersion("5.32"));
    Pipe pipe = new Pipe(toClient, new LinkedBlockingQueue<>());
    PerftestExchange x = new PerftestExchange(pipe, false);
    // The server receives first: queue the peer's messages before each exchange.
    x.exchangeVersions();
    toClient.add(PerftestExchange.encodeLong(2));
    toClient.add(PerftestExchange.encodeInt(7));
    toClient.add(PerftestExchange.encodeDouble(1));
    toClient.add(PerftestExchange.encodeDouble(2));
    toClient.add(PerftestExchange.encodeDouble(3));
    BwReport r = x.exchangeBwReports(new BwReport(2, 7, 1, 2, 3));
    assertEquals(new BwReport(2, 7, 1, 2, 3), r);
    assertEquals(4, pipe.sent.get(2).length);
  }
}
