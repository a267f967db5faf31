package io.iwarp4j.testkit;

import io.iwarp4j.wire.EnhancedConnectionData;
import io.iwarp4j.wire.FpduHeader;
import io.iwarp4j.wire.MpaStartupFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PushbackInputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * A real MPA peer over TCP on 127.0.0.1 that does exactly what the test scripts, right or wrong,
 * one step at a time: the MPA startup as Initiator ({@link #connect}) or Responder ({@link
 * #listen}), accepting or rejecting with given private data; FPDUs around any ULPDU ({@link
 * Ulpdus} writes the usual ones), with a correct or a bad CRC, cut off in the middle; a premature
 * FIN or a RST; and reads of what the code under test sent back, down to the exact {@link
 * Terminate}. Every frame is written and checked with the project's own codecs, so it is
 * byte-exact: MPA revision 2 with Enhanced Connection Data (RFC 6581), CRC32c unless turned off
 * with {@link #crc(boolean)}, never Markers.
 *
 * <p>Blocking I/O on the test's thread, every read bounded by {@link #timeout(Duration)} (5 s by
 * default): a step that does not happen fails the test with an {@link AssertionError} instead
 * of hanging it. I/O errors are thrown as {@link UncheckedIOException}. The peer keeps the
 * Message Sequence Numbers of its own Sends, Read Requests and Terminates so that {@link
 * #sendSend(byte[])} and friends number them right; {@link #sendUlpdu(byte[])} with a
 * hand-numbered {@link Ulpdus#send(int, byte[])} makes a wrong one.
 *
 * <pre>{@code
 * try (ScriptedPeer peer = ScriptedPeer.connect(listener.localAddress())) {
 *   peer.sendRequest(new byte[0]);
 *   peer.readReply();
 *   peer.sendBadCrc(Ulpdus.send(1, "hello".getBytes()));
 *   peer.expectTerminate(Terminate.LAYER_LLP, 0, 2).expectClosed();
 * }
 * }</pre>
 */
public final class ScriptedPeer implements AutoCloseable {
  private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
  private static final int DEFAULT_DEPTH = 4;

  private final ServerSocket server;
  private Socket socket;
  private PushbackInputStream pushback;
  private DataInputStream in;
  private OutputStream out;
  private Duration timeout = DEFAULT_TIMEOUT;
  private boolean crc = true;
  private int ird = DEFAULT_DEPTH;
  private int ord = DEFAULT_DEPTH;
  private int sendMsn = 1;
  private int readMsn = 1;
  private int terminateMsn = 1;
  private byte[] heldBack;

  private ScriptedPeer(ServerSocket server, Socket socket) throws IOException {
    this.server = server;
    if (socket != null) {
      attach(socket);
    }
  }

  /**
   * Opens a TCP connection to the code under test, as an MPA Initiator that has not yet sent its
   * Request ({@link #sendRequest(byte[])}).
   *
   * @param device the address the code under test listens on
   * @return the connected peer
   * @throws UncheckedIOException if the connection fails
   */
  public static ScriptedPeer connect(InetSocketAddress device) {
    Socket s = new Socket();
    try {
      s.connect(device, (int) DEFAULT_TIMEOUT.toMillis());
      return new ScriptedPeer(null, s);
    } catch (IOException e) {
      closeQuietly(s);
      throw new UncheckedIOException("cannot connect to " + device, e);
    }
  }

  /**
   * Listens on 127.0.0.1 (an ephemeral port) as an MPA Responder; the code under test connects
   * to {@link #address()}, and {@link #awaitConnection()} takes its TCP connection.
   *
   * @return the listening peer
   * @throws UncheckedIOException if it cannot listen
   */
  public static ScriptedPeer listen() {
    try {
      return new ScriptedPeer(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()), null);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on 127.0.0.1", e);
    }
  }

  /**
   * The address a listening peer accepts on.
   *
   * @return the 127.0.0.1 address
   * @throws IllegalStateException if this peer connected instead
   */
  public InetSocketAddress address() {
    if (server == null) {
      throw new IllegalStateException("this peer connected; it does not listen");
    }
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
  }

  /**
   * Takes the TCP connection of the code under test (a listening peer).
   *
   * @return this
   * @throws AssertionError if nothing connects within the timeout
   */
  public ScriptedPeer awaitConnection() {
    if (server == null) {
      throw new IllegalStateException("this peer connected; it does not listen");
    }
    try {
      server.setSoTimeout(millis());
      attach(server.accept());
      return this;
    } catch (SocketTimeoutException e) {
      throw new AssertionError("nothing connected to " + address() + " within "
          + timeout.toMillis() + " ms");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void attach(Socket s) throws IOException {
    socket = s;
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(millis());
    pushback = new PushbackInputStream(socket.getInputStream(), 1);
    in = new DataInputStream(pushback);
    out = socket.getOutputStream();
  }

  /**
   * Bounds every later read (5 s by default).
   *
   * @param timeout how long a read may wait
   * @return this
   */
  public ScriptedPeer timeout(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout " + timeout + " must be positive");
    }
    this.timeout = timeout;
    if (socket != null) {
      setSoTimeout(millis());
    }
    return this;
  }

  /**
   * Whether this peer asks for (in its Request) or grants (in its Reply) CRC32c, and so writes
   * and checks it on FPDUs; on by default. Without CRC the CRC field is sent as zero and not
   * checked on receipt.
   *
   * @param on true for CRC32c
   * @return this
   */
  public ScriptedPeer crc(boolean on) {
    this.crc = on;
    return this;
  }

  /**
   * The IRD and ORD this peer announces in its Enhanced Connection Data (4 each by default).
   *
   * @param ird the inbound Read queue depth, 0 to 16383
   * @param ord the outbound Read queue depth, 0 to 16383
   * @return this
   */
  public ScriptedPeer readDepths(int ird, int ord) {
    this.ird = ird;
    this.ord = ord;
    return this;
  }

  // ---- MPA startup ----

  /**
   * Sends an MPA Request: Rev 2, client-server, the CRC choice, no Markers, this peer's IRD and
   * ORD, then {@code privateData}.
   *
   * @param privateData the application's private data (0 to 508 octets)
   * @return this
   */
  public ScriptedPeer sendRequest(byte[] privateData) {
    return sendStartup(MpaStartupFrame.Kind.REQUEST, crc ? MpaStartupFrame.FLAG_C : 0,
        privateData);
  }

  /**
   * Reads the MPA Reply of the code under test (an Initiator's step).
   *
   * @return the Reply; {@link MpaStartup#rejected()} tells a rejection
   * @throws AssertionError if no well-formed Reply arrives in time
   */
  public MpaStartup readReply() {
    return readStartup(MpaStartupFrame.Kind.REPLY);
  }

  /**
   * Reads the MPA Request of the code under test (a Responder's step, after {@link
   * #awaitConnection()}).
   *
   * @return the Request
   * @throws AssertionError if no well-formed Request arrives in time
   */
  public MpaStartup readRequest() {
    return readStartup(MpaStartupFrame.Kind.REQUEST);
  }

  /**
   * Accepts: sends an MPA Reply with the CRC choice, no Markers, this peer's IRD and ORD, and
   * {@code privateData}.
   *
   * @param privateData the application's private data
   * @return this
   */
  public ScriptedPeer accept(byte[] privateData) {
    return sendStartup(MpaStartupFrame.Kind.REPLY, crc ? MpaStartupFrame.FLAG_C : 0,
        privateData);
  }

  /**
   * Rejects: sends an MPA Reply with the R bit and {@code privateData} (the connection is then
   * the code under test's to close).
   *
   * @param privateData the application's private data, for example the reason
   * @return this
   */
  public ScriptedPeer reject(byte[] privateData) {
    return sendStartup(MpaStartupFrame.Kind.REPLY, MpaStartupFrame.FLAG_R, privateData);
  }

  private ScriptedPeer sendStartup(MpaStartupFrame.Kind kind, int flags, byte[] privateData) {
    Objects.requireNonNull(privateData, "privateData");
    int pdLength = EnhancedConnectionData.LENGTH + privateData.length;
    ByteBuf buf = Unpooled.wrappedBuffer(new byte[MpaStartupFrame.HEADER_LENGTH + pdLength])
        .clear();
    MpaStartupFrame.writeHeader(buf, kind, flags | MpaStartupFrame.FLAG_S, 2, pdLength);
    EnhancedConnectionData.write(buf, false, 0, ird, ord);
    buf.writeBytes(privateData);
    return sendRaw(buf.array());
  }

  private MpaStartup readStartup(MpaStartupFrame.Kind kind) {
    byte[] header = new byte[MpaStartupFrame.HEADER_LENGTH];
    readFully(header, "MPA " + kind);
    ByteBuf buf = Unpooled.wrappedBuffer(header);
    MpaStartupFrame frame = new MpaStartupFrame().wrap(buf, 0);
    String problem = frame.checkHeader(kind);
    if (problem != null) {
      throw new AssertionError("malformed MPA " + kind + " (" + problem + "): "
          + ByteBufUtil.hexDump(header));
    }
    byte[] pd = new byte[frame.privateDataLength()];
    readFully(pd, "the private data of an MPA " + kind);
    int ecd = frame.enhanced() && pd.length >= EnhancedConnectionData.LENGTH
        ? EnhancedConnectionData.LENGTH : 0;
    ByteBuf pdBuf = Unpooled.wrappedBuffer(pd);
    return new MpaStartup(kind == MpaStartupFrame.Kind.REPLY, frame.revision(), frame.crc(),
        frame.markers(), frame.rejected(),
        ecd > 0 ? EnhancedConnectionData.ird(pdBuf, 0) : -1,
        ecd > 0 ? EnhancedConnectionData.ord(pdBuf, 0) : -1,
        Arrays.copyOfRange(pd, ecd, pd.length));
  }

  // ---- FPDUs out ----

  /**
   * Sends an RDMAP Send with the next Message Sequence Number of queue 0.
   *
   * @param payload the message
   * @return this
   */
  public ScriptedPeer sendSend(byte[] payload) {
    return sendUlpdu(Ulpdus.send(sendMsn++, payload));
  }

  /**
   * Sends an RDMA Write to {@code stag} at {@code to}; an unknown STag or an offset out of
   * bounds make the hostile cases.
   *
   * @param stag the data sink STag
   * @param to the tagged offset
   * @param payload the data
   * @return this
   */
  public ScriptedPeer sendWrite(int stag, long to, byte[] payload) {
    return sendUlpdu(Ulpdus.write(stag, to, payload));
  }

  /**
   * Sends an RDMA Read Request with the next Message Sequence Number of queue 1.
   *
   * @param sinkStag this peer's STag the data would be placed in
   * @param sinkTo the tagged offset there
   * @param size octets to read
   * @param srcStag the STag of the code under test to read
   * @param srcTo the tagged offset there
   * @return this
   */
  public ScriptedPeer sendReadRequest(int sinkStag, long sinkTo, int size, int srcStag,
      long srcTo) {
    return sendUlpdu(Ulpdus.readRequest(readMsn++, sinkStag, sinkTo, size, srcStag, srcTo));
  }

  /**
   * Sends a Terminate of any layer, type and code, with the next Message Sequence Number of
   * queue 2.
   *
   * @param layer the Layer ({@link Terminate#LAYER_RDMAP}, {@link Terminate#LAYER_DDP}, {@link
   *     Terminate#LAYER_LLP})
   * @param errorType the EType
   * @param errorCode the Error Code
   * @return this
   */
  public ScriptedPeer sendTerminate(int layer, int errorType, int errorCode) {
    return sendUlpdu(Ulpdus.terminate(terminateMsn++, layer, errorType, errorCode));
  }

  /**
   * Sends one FPDU around {@code ulpdu}: ULPDU_Length, ULPDU, pad, CRC.
   *
   * @param ulpdu the DDP segment, at most 65535 octets
   * @return this
   */
  public ScriptedPeer sendUlpdu(byte[] ulpdu) {
    return sendRaw(fpdu(ulpdu, false));
  }

  /**
   * Sends one FPDU around {@code ulpdu} whose CRC field is wrong in one bit (with CRC off, a
   * non-zero CRC field).
   *
   * @param ulpdu the DDP segment
   * @return this
   */
  public ScriptedPeer sendBadCrc(byte[] ulpdu) {
    return sendRaw(fpdu(ulpdu, true));
  }

  /**
   * Sends only the first {@code octets} of the FPDU around {@code ulpdu} and holds the rest
   * back: a peer stalled in the middle of an FPDU. {@link #sendRestOfFpdu()} sends the rest.
   *
   * @param ulpdu the DDP segment
   * @param octets how many octets of the FPDU to send, fewer than all of it
   * @return this
   */
  public ScriptedPeer sendPartialFpdu(byte[] ulpdu, int octets) {
    byte[] whole = fpdu(ulpdu, false);
    if (octets < 0 || octets >= whole.length) {
      throw new IllegalArgumentException("the FPDU has " + whole.length + " octets; "
          + octets + " is not a part of it");
    }
    heldBack = Arrays.copyOfRange(whole, octets, whole.length);
    return sendRaw(Arrays.copyOf(whole, octets));
  }

  /**
   * Sends what {@link #sendPartialFpdu} held back.
   *
   * @return this
   * @throws IllegalStateException if nothing is held back
   */
  public ScriptedPeer sendRestOfFpdu() {
    if (heldBack == null) {
      throw new IllegalStateException("no partial FPDU was sent");
    }
    byte[] rest = heldBack;
    heldBack = null;
    return sendRaw(rest);
  }

  /**
   * Writes octets as they are.
   *
   * @param octets anything
   * @return this
   */
  public ScriptedPeer sendRaw(byte[] octets) {
    try {
      out.write(octets);
      out.flush();
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException("writing " + octets.length + " octets failed", e);
    }
  }

  /**
   * Sends a FIN (a half-close): this peer sends nothing more, and still reads.
   *
   * @return this
   */
  public ScriptedPeer fin() {
    try {
      socket.shutdownOutput();
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Resets the connection: a TCP RST instead of a FIN, and the socket is closed. */
  public void reset() {
    try {
      socket.setSoLinger(true, 0);
    } catch (SocketException e) {
      throw new UncheckedIOException(e);
    }
    closeQuietly(socket);
  }

  /** The octets of an FPDU (RFC 5044 §4.1), with a correct or a corrupted CRC field. */
  private byte[] fpdu(byte[] ulpdu, boolean corruptCrc) {
    ByteBuf buf = Unpooled.wrappedBuffer(new byte[FpduHeader.fpduLength(ulpdu.length)]).clear();
    buf.writeShort(ulpdu.length).writeBytes(ulpdu).writeZero(FpduHeader.padLength(ulpdu.length));
    int crcValue = crc ? crc32c(buf.array(), buf.writerIndex()) : 0;
    FpduHeader.writeCrc(buf, crcValue ^ (corruptCrc ? 1 : 0));
    return buf.array();
  }

  private static int crc32c(byte[] octets, int length) {
    CRC32C c = new CRC32C();
    c.update(octets, 0, length);
    return (int) c.getValue();
  }

  // ---- what came back ----

  /**
   * Reads the next FPDU from the code under test, checks its CRC (when on) and returns its
   * ULPDU.
   *
   * @return the ULPDU
   * @throws AssertionError if none arrives in time, the stream ends, or the CRC is wrong
   */
  public byte[] readUlpdu() {
    byte[] length = new byte[FpduHeader.ULPDU_LENGTH_SIZE];
    readFully(length, "an FPDU");
    int n = (length[0] & 0xFF) << 8 | (length[1] & 0xFF);
    byte[] rest = new byte[n + FpduHeader.padLength(n) + FpduHeader.CRC_SIZE];
    readFully(rest, "the rest of an FPDU of " + n + " ULPDU octets");
    byte[] whole = new byte[length.length + rest.length];
    System.arraycopy(length, 0, whole, 0, length.length);
    System.arraycopy(rest, 0, whole, length.length, rest.length);
    if (crc) {
      int at = whole.length - FpduHeader.CRC_SIZE;
      int got = FpduHeader.getCrc(Unpooled.wrappedBuffer(whole), at);
      if (got != crc32c(whole, at)) {
        throw new AssertionError("FPDU with a bad CRC from the code under test: "
            + ByteBufUtil.hexDump(whole));
      }
    }
    return Arrays.copyOfRange(whole, FpduHeader.ULPDU_OFFSET, FpduHeader.ULPDU_OFFSET + n);
  }

  /**
   * Like {@link #readUlpdu()}, but the code under test closing the connection (FIN or RST)
   * before the first octet of an FPDU is an answer too.
   *
   * @return the ULPDU, or null if the connection ended at an FPDU boundary
   * @throws AssertionError if nothing arrives in time, the stream ends inside an FPDU, or the
   *     CRC is wrong
   */
  public byte[] readUlpduUnlessClosed() {
    try {
      int first = pushback.read();
      if (first < 0) {
        return null;
      }
      pushback.unread(first);
      return readUlpdu();
    } catch (SocketTimeoutException e) {
      throw new AssertionError("nothing (expected an FPDU or a close) within "
          + timeout.toMillis() + " ms");
    } catch (SocketException | EOFException e) {
      return null; // reset
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads FPDUs until a Terminate and decodes it; other FPDUs before it are skipped.
   *
   * @return the Terminate
   * @throws AssertionError if the stream ends or goes quiet without one
   */
  public Terminate readTerminate() {
    while (true) {
      byte[] ulpdu = readUlpdu();
      if (Ulpdus.isTerminate(ulpdu)) {
        return Terminate.decode(ulpdu);
      }
    }
  }

  /**
   * Reads the Terminate and asserts its layer, type and code.
   *
   * @param layer the expected Layer
   * @param errorType the expected EType
   * @param errorCode the expected Error Code
   * @return this
   * @throws AssertionError naming the Terminate received instead
   */
  public ScriptedPeer expectTerminate(int layer, int errorType, int errorCode) {
    Terminate t = readTerminate();
    if (!t.is(layer, errorType, errorCode)) {
      throw new AssertionError("expected Terminate layer " + layer + " type " + errorType
          + " code " + errorCode + ", got " + t);
    }
    return this;
  }

  /**
   * Asserts that the code under test closes the connection (FIN or RST) within the timeout
   * and sends nothing more before it.
   *
   * @throws AssertionError if octets arrive or the connection stays open
   */
  public void expectClosed() {
    try {
      int b = in.read();
      if (b >= 0) {
        throw new AssertionError("expected the connection closed, got octet 0x"
            + Integer.toHexString(b) + " (and maybe more)");
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the code under test kept the connection open for "
          + timeout.toMillis() + " ms");
    } catch (SocketException | EOFException e) {
      // reset: closed
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Asserts that nothing arrives and the connection stays open for {@code window}.
   *
   * @param window how long to watch
   * @return this
   * @throws AssertionError if octets arrive or the connection closes
   */
  public ScriptedPeer expectSilence(Duration window) {
    setSoTimeout((int) Math.max(1, window.toMillis()));
    try {
      int b = in.read();
      throw new AssertionError(b < 0 ? "the connection closed within " + window.toMillis()
          + " ms" : "octet 0x" + Integer.toHexString(b) + " arrived within "
          + window.toMillis() + " ms");
    } catch (SocketTimeoutException quiet) {
      return this;
    } catch (IOException e) {
      throw new AssertionError("the connection failed within " + window.toMillis() + " ms", e);
    } finally {
      setSoTimeout(millis());
    }
  }

  private void readFully(byte[] into, String what) {
    try {
      in.readFully(into);
    } catch (SocketTimeoutException e) {
      throw new AssertionError("nothing (expected " + what + ") within " + timeout.toMillis() + " ms");
    } catch (EOFException e) {
      throw new AssertionError("the connection ended before " + what);
    } catch (IOException e) {
      throw new AssertionError("the connection failed before " + what, e);
    }
  }

  private void setSoTimeout(int ms) {
    try {
      socket.setSoTimeout(ms);
    } catch (SocketException e) {
      throw new UncheckedIOException(e);
    }
  }

  private int millis() {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
  }

  /** Closes the connection (a FIN) and the listening socket, if any. */
  @Override
  public void close() {
    if (socket != null) {
      closeQuietly(socket);
    }
    if (server != null) {
      closeQuietly(server);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // best effort
    }
  }

  @Override
  public String toString() {
    return "ScriptedPeer{" + (socket != null ? socket.getLocalSocketAddress() + " <-> "
        + socket.getRemoteSocketAddress() : "listening on " + address()) + '}';
  }
}
