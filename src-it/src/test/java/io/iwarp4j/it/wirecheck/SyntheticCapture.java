package io.iwarp4j.it.wirecheck;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Writes a classic pcap of one or more MPA connections built octet by octet, for tests of the
 * wire checker on cases no live peer produces on demand (a tshark desynchronisation on a stream
 * with siw's non-zero PAD, a hole in the capture, a Terminate). Ethernet, IPv4 and TCP headers
 * with a three-way handshake; the TCP checksum is left zero (tshark does not verify it by
 * default). Each {@link Conn} keeps its own sequence numbers; segments are written in call order.
 */
final class SyntheticCapture {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private long micros = 1_700_000_000_000_000L;

  SyntheticCapture() {
    ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
    h.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0)
        .putInt(262144).putInt(1);
    out.writeBytes(h.array());
  }

  /** The capture's clock (microseconds since the epoch), moved on by 1 ms per frame. */
  long nowMicros() {
    return micros;
  }

  /** Moves the clock on. */
  void sleep(long ms) {
    micros += ms * 1000;
  }

  /** A TCP connection from 127.0.0.1:{@code clientPort} to 127.0.0.1:{@code serverPort}. */
  Conn connect(int clientPort, int serverPort) {
    Conn c = new Conn(clientPort, serverPort);
    c.frame(true, 0x02, new byte[0]);
    c.seq[0]++;
    c.frame(false, 0x12, new byte[0]);
    c.seq[1]++;
    c.frame(true, 0x10, new byte[0]);
    return c;
  }

  void write(Path pcap) throws IOException {
    Files.write(pcap, out.toByteArray());
  }

  /** One connection: the client is the MPA Initiator. */
  final class Conn {
    final int[] ports;
    final long[] seq = {1000, 50000};

    private Conn(int clientPort, int serverPort) {
      ports = new int[] {clientPort, serverPort};
    }

    /** A data segment from the client ({@code fromClient}) or the server. */
    Conn send(boolean fromClient, byte[] payload) {
      frame(fromClient, 0x18, payload);
      seq[fromClient ? 0 : 1] += payload.length;
      return this;
    }

    /** Octets the sender sent that the capture never saw (a hole). */
    Conn lose(boolean fromClient, int octets) {
      seq[fromClient ? 0 : 1] += octets;
      return this;
    }

    private void frame(boolean fromClient, int flags, byte[] payload) {
      int from = fromClient ? 0 : 1;
      ByteBuffer f = ByteBuffer.allocate(14 + 20 + 20 + payload.length);
      f.put(new byte[12]).putShort((short) 0x0800);
      f.put((byte) 0x45).put((byte) 0).putShort((short) (40 + payload.length)).putShort((short) 0)
          .putShort((short) 0x4000).put((byte) 64).put((byte) 6).putShort((short) 0)
          .putInt(0x7f000001).putInt(0x7f000001);
      f.putShort((short) ports[from]).putShort((short) ports[1 - from]).putInt((int) seq[from])
          .putInt(flags == 0x02 ? 0 : (int) seq[1 - from]).put((byte) 0x50).put((byte) flags)
          .putShort((short) 65535).putShort((short) 0).putShort((short) 0);
      f.put(payload);
      ByteBuffer rec = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
      rec.putInt((int) (micros / 1_000_000)).putInt((int) (micros % 1_000_000))
          .putInt(f.capacity()).putInt(f.capacity());
      out.writeBytes(rec.array());
      out.writeBytes(f.array());
      micros += 1000;
    }
  }

  // ------------------------------------------------------------------------------------------
  // MPA frames and FPDUs (RFC 5044 §7.1, §4; RFC 5041 §4; RFC 5040 §4).

  /** An MPA Request or Reply, Rev 2 with S=1 and IRD=ORD=1 (siw's), CRC as asked. */
  static byte[] mpa(boolean request, boolean crc, boolean reject) {
    ByteBuffer b = ByteBuffer.allocate(24);
    b.put((request ? "MPA ID Req Frame" : "MPA ID Rep Frame").getBytes(StandardCharsets.US_ASCII));
    b.put((byte) ((crc ? 0x40 : 0) | (reject ? 0x20 : 0) | 0x10)).put((byte) 2).putShort((short) 4)
        .putShort((short) 1).putShort((short) 1);
    return b.array();
  }

  /** An untagged ULPDU: DDP header (RFC 5041 §4.3) with RDMAP control RV=1, then the payload. */
  static byte[] untagged(int op, boolean last, long qn, long msn, long mo, byte[] payload) {
    ByteBuffer b = ByteBuffer.allocate(18 + payload.length);
    b.put((byte) ((last ? 0x40 : 0) | 0x01)).put((byte) (0x40 | op)).putInt(0).putInt((int) qn)
        .putInt((int) msn).putInt((int) mo).put(payload);
    return b.array();
  }

  /** A tagged ULPDU (RFC 5041 §4.2): STag, TO, then the payload. */
  static byte[] tagged(int op, boolean last, long stag, long to, byte[] payload) {
    ByteBuffer b = ByteBuffer.allocate(14 + payload.length);
    b.put((byte) ((last ? 0x40 : 0) | 0x80 | 0x01)).put((byte) (0x40 | op)).putInt((int) stag)
        .putLong(to).put(payload);
    return b.array();
  }

  /** A Send of {@code payload} octets (each 0x5a) as one segment, MSN {@code msn}. */
  static byte[] send(long msn, int payload) {
    return send(msn, payload, 0x5a);
  }

  /** A Send of {@code payload} octets (each {@code fill}) as one segment, MSN {@code msn}. */
  static byte[] send(long msn, int payload, int fill) {
    byte[] p = new byte[payload];
    java.util.Arrays.fill(p, (byte) fill);
    return untagged(3, true, 0, msn, 0, p);
  }

  /** A Terminate (RFC 5040 §4.8): layer, error type, code; no headers carried. */
  static byte[] terminate(long msn, int layer, int type, int code) {
    byte[] p = {(byte) (layer << 4 | type), (byte) code, 0, 0};
    return untagged(7, true, 2, msn, 0, p);
  }

  /** The FPDU of {@code ulpdu}: length, ULPDU, PAD (each octet {@code padFill}), CRC or zeros. */
  static byte[] fpdu(byte[] ulpdu, boolean crc, int padFill) {
    int pad = (4 - (ulpdu.length + 2) % 4) % 4;
    ByteBuffer b = ByteBuffer.allocate(2 + ulpdu.length + pad + 4);
    b.putShort((short) ulpdu.length).put(ulpdu);
    for (int i = 0; i < pad; i++) {
      b.put((byte) padFill);
    }
    long v = 0;
    if (crc) {
      CRC32C c = new CRC32C();
      c.update(b.array(), 0, b.position());
      v = c.getValue();
    }
    b.order(ByteOrder.LITTLE_ENDIAN).putInt((int) v);
    return b.array();
  }

  /** Concatenation. */
  static byte[] cat(byte[]... parts) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      o.writeBytes(p);
    }
    return o.toByteArray();
  }
}
