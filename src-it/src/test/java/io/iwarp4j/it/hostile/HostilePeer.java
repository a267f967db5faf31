package io.iwarp4j.it.hostile;

import io.iwarp4j.wire.MpaStartupFrame;
import io.iwarp4j.wire.EnhancedConnectionData;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * A raw-TCP MPA Initiator that does what the test tells it, right or wrong: it speaks the MPA
 * startup through the project's {@link MpaStartupFrame} codec, then writes FPDUs (CRC on, no
 * Markers) around hand-made ULPDUs, or raw octets, and reads back and checks the FPDUs the
 * device sends. Blocking I/O with a read timeout, so a test never hangs on it.
 */
final class HostilePeer implements AutoCloseable {
  static final int READ_TIMEOUT_MILLIS = 10_000;

  /** DDP control octet: T=0, L=1, DV=1 (RFC 5041 §4.2). */
  static final int UNTAGGED_LAST = 0x41;
  /** DDP control octet: T=1, L=1, DV=1. */
  static final int TAGGED_LAST = 0xC1;
  /** RDMAP control octet with RV=1 and the given opcode (RFC 5040 §4.2). */
  static int rdmap(int opcode) {
    return 0x40 | opcode;
  }

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;

  HostilePeer(InetSocketAddress device) throws IOException {
    socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(READ_TIMEOUT_MILLIS);
    socket.connect(device, READ_TIMEOUT_MILLIS);
    in = new DataInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  /** The local port of the peer's socket. */
  int localPort() {
    return socket.getLocalPort();
  }

  /** Sends a well-formed MPA Request: Rev 2, CRC, no Markers, client-server, IRD = ORD = 4. */
  void sendRequest() throws IOException {
    ByteBuf buf = Unpooled.buffer();
    try {
      MpaStartupFrame.writeHeader(buf, MpaStartupFrame.Kind.REQUEST,
          MpaStartupFrame.FLAG_C | MpaStartupFrame.FLAG_S, 2, EnhancedConnectionData.LENGTH);
      EnhancedConnectionData.write(buf, false, 0, 4, 4);
      writeRaw(ByteBufUtil.getBytes(buf));
    } finally {
      buf.release();
    }
  }

  /** Reads the MPA Reply and fails unless it accepts the connection with CRC and no Markers. */
  void readReply() throws IOException {
    byte[] header = new byte[MpaStartupFrame.HEADER_LENGTH];
    in.readFully(header);
    ByteBuf buf = Unpooled.wrappedBuffer(header);
    MpaStartupFrame frame = new MpaStartupFrame().wrap(buf, 0);
    String problem = frame.checkHeader(MpaStartupFrame.Kind.REPLY);
    if (problem != null || frame.rejected() || frame.markers() || !frame.crc()) {
      throw new IOException("unexpected MPA Reply " + Arrays.toString(header) + ": " + problem);
    }
    in.readFully(new byte[frame.privateDataLength()]);
  }

  /** Writes octets as they are. */
  void writeRaw(byte[] octets) throws IOException {
    out.write(octets);
    out.flush();
  }

  /** Writes one FPDU around {@code ulpdu}: ULPDU_Length, ULPDU, pad, CRC32c. */
  void sendFpdu(byte[] ulpdu) throws IOException {
    writeRaw(fpdu(ulpdu, false));
  }

  /** Writes one FPDU whose CRC field is wrong by one bit. */
  void sendFpduWithBadCrc(byte[] ulpdu) throws IOException {
    writeRaw(fpdu(ulpdu, true));
  }

  /** The octets of an FPDU (RFC 5044 §4.1), with a correct or a corrupted CRC. */
  static byte[] fpdu(byte[] ulpdu, boolean corruptCrc) {
    int pad = (4 - (2 + ulpdu.length) % 4) % 4;
    ByteBuffer b = ByteBuffer.allocate(2 + ulpdu.length + pad + 4);
    b.putShort((short) ulpdu.length).put(ulpdu).put(new byte[pad]);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, b.position());
    int value = (int) crc.getValue();
    // MPA sends the CRC32c in network order of its reflected value (RFC 5044 §4.4, App. B).
    b.putInt(Integer.reverseBytes(value) ^ (corruptCrc ? 1 : 0));
    return b.array();
  }

  /**
   * Reads one FPDU and returns its ULPDU, after checking its CRC; {@code null} at end of
   * stream before the first octet.
   */
  byte[] readFpdu() throws IOException {
    int hi = in.read();
    if (hi < 0) {
      return null;
    }
    int length = (hi << 8) | in.readUnsignedByte();
    int pad = (4 - (2 + length) % 4) % 4;
    byte[] body = new byte[length + pad];
    in.readFully(body);
    int crcField = in.readInt();
    CRC32C crc = new CRC32C();
    crc.update(new byte[] {(byte) hi, (byte) (length & 0xFF)});
    crc.update(body);
    if (Integer.reverseBytes((int) crc.getValue()) != crcField) {
      throw new IOException("FPDU from the device with a bad CRC");
    }
    return Arrays.copyOf(body, length);
  }

  /** True if the device closed its side: end of stream (or a reset) before any further octet. */
  boolean closedByDevice() throws IOException {
    try {
      return in.read() < 0;
    } catch (java.net.SocketException reset) {
      return true;
    } catch (EOFException e) {
      return true;
    }
  }

  /** Makes {@link #close()} send a TCP RST instead of a FIN (SO_LINGER 0). */
  void resetOnClose() throws IOException {
    socket.setSoLinger(true, 0);
  }

  /** Half-closes: sends a FIN, keeps reading. */
  void shutdownOutput() throws IOException {
    socket.shutdownOutput();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /** An untagged DDP segment with its RDMAP control octet (RFC 5041 §4.4, RFC 5040 §4.3). */
  static byte[] untagged(int ddpControl, int rdmapControl, int invalidateStag, int qn, int msn,
      int mo, byte[] payload) {
    return ByteBuffer.allocate(18 + payload.length).put((byte) ddpControl)
        .put((byte) rdmapControl).putInt(invalidateStag).putInt(qn).putInt(msn).putInt(mo)
        .put(payload).array();
  }

  /** A tagged DDP segment with its RDMAP control octet (RFC 5041 §4.3). */
  static byte[] tagged(int ddpControl, int rdmapControl, int stag, long to, byte[] payload) {
    return ByteBuffer.allocate(14 + payload.length).put((byte) ddpControl)
        .put((byte) rdmapControl).putInt(stag).putLong(to).put(payload).array();
  }

  /** An RDMA Read Request header (RFC 5040 §4.4). */
  static byte[] readRequest(int sinkStag, long sinkTo, int size, int srcStag, long srcTo) {
    return ByteBuffer.allocate(28).putInt(sinkStag).putLong(sinkTo).putInt(size)
        .putInt(srcStag).putLong(srcTo).array();
  }
}
