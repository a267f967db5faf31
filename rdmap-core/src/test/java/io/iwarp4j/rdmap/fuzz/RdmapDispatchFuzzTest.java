package io.iwarp4j.rdmap.fuzz;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.RegionOptions;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.ddp.testing.FramedStream;
import io.iwarp4j.mpa.FpduDeframer;
import io.iwarp4j.mpa.fuzz.ByteCursor;
import io.iwarp4j.mpa.fuzz.FuzzInput;
import io.iwarp4j.mpa.testing.ReferenceFpdu;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.rdmap.RdmapEndpoint;
import io.iwarp4j.rdmap.RdmapEndpointListener;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Coverage-guided fuzzing of RDMAP dispatch: an {@link RdmapEndpoint} on a real {@link DdpStream}
 * and {@link FpduDeframer} in an EmbeddedChannel receives fuzzed RDMAP messages: Writes, Read
 * Requests (the Read Request parser and the responder), Read Responses, Sends, Terminates (the
 * Terminate parser) and, with RFC 7306 on, Atomic Requests/Responses and Immediate Data.
 *
 * <p>Input layout ({@link ByteCursor}): a settings octet (bit 0 RFC 7306, bit 1 issue an RDMA Read
 * first, bit 2 issue an Atomic first), a segment count (0-8), per segment a selector octet, a
 * 16-bit TO choice, a 16-bit length and the ULPDU octets, then 16-bit read sizes. Selector bits 0-2
 * put one of the test's STags (exposed, sink, read-only, stale, other PD) at the place bits 3-4
 * choose (tagged header, Read Request source, Atomic Request target, Read Request sink); bit 5 puts
 * a TO near the regions' base there.
 *
 * <p>Invariants: no exception escapes; guard octets never change, nor do regions no inbound
 * operation may write (read-only, other PD, stale); at most one Terminate is sent; after the
 * stream ended (Terminate sent or received, disconnect) no octet changes; every read buffer and
 * everything written to the transport is released.
 */
class RdmapDispatchFuzzTest {
  static final int GUARD = 16;
  static final int SIZE = 256;
  static final long BASE = 0x20000;
  private static final int[] STAG_AT = {2, 34, 26, 18};
  private static final int[] TO_AT = {6, 38, 30, 22};

  @FuzzTest(maxDuration = "60s")
  void dispatch(byte[] fuzz) {
    ByteCursor data = new ByteCursor(fuzz);
    int cfg = data.u8();
    Fixture f = new Fixture((cfg & 1) != 0);
    try {
      if ((cfg & 2) != 0) {
        f.endpoint.read(1, f.sink.stag(), BASE, 32, 0x12345678, 0);
      }
      if ((cfg & 4) != 0 && f.endpoint.rfc7306Enabled() && f.endpoint.canIssueRead()) {
        f.endpoint.atomic(2, AtomicOpcode.FETCH_ADD, 0x12345678, 0, 1, 0, 0, -1L,
            f.sink.stag(), BASE + 64);
      }
      f.endpoint.flush();
      f.channel.runPendingTasks();
      List<byte[]> ulpdus = new ArrayList<>();
      int count = data.u8() % 9;
      for (int i = 0; i < count; i++) {
        int selector = data.u8();
        int toChoice = data.u16();
        byte[] u = data.bytes(data.intIn(0, 2 * SIZE + 64));
        int where = (selector >> 3) & 3;
        int pick = selector & 7;
        if (pick != 0 && pick <= f.stags.length && u.length >= STAG_AT[where] + 4) {
          putBits(u, STAG_AT[where], f.stags[pick - 1], 4);
        }
        if ((selector & 0x20) != 0 && u.length >= TO_AT[where] + 8) {
          putBits(u, TO_AT[where], BASE - 8 + toChoice % (SIZE + 16), 8);
        }
        ulpdus.add(u);
      }
      byte[] wire = ReferenceFpdu.encode(ulpdus, false, false);
      f.input.feed(f.channel, data, wire, 700, f::checkInvariants);
      f.channel.checkException();
      f.checkInvariants();
    } finally {
      f.close();
    }
  }

  private static void putBits(byte[] b, int at, long v, int octets) {
    for (int i = 0; i < octets; i++) {
      b[at + i] = (byte) (v >>> (8 * (octets - 1 - i)));
    }
  }

  /** The socket: takes every write at once (releasing it, so pinned sources are unpinned). */
  private static final class Sink extends ChannelOutboundHandlerAdapter {
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      ReferenceCountUtil.release(msg);
      promise.trySuccess();
    }
  }

  /** One endpoint, its regions between guards, and snapshots. */
  private static final class Fixture implements AutoCloseable, RdmapEndpointListener {
    final StagTable table = new StagTable(8, new SplittableRandom(5040), Duration.ofSeconds(5));
    final ProtectionDomain pd = table.newProtectionDomain();
    final ProtectionDomain otherPd = table.newProtectionDomain();
    final List<ByteBuf> memory = new ArrayList<>();
    final List<Boolean> mayChange = new ArrayList<>();
    final List<MemoryRegion> regions = new ArrayList<>();
    final MemoryRegion exposed;
    final MemoryRegion sink;
    /** exposed, sink, read-only, stale, other PD. */
    final int[] stags = new int[5];
    final EmbeddedChannel channel;
    final RdmapEndpoint endpoint;
    final FuzzInput input = new FuzzInput();
    final List<byte[]> initial;
    List<byte[]> atEnd;
    int terminatesSent;

    Fixture(boolean rfc7306) {
      exposed = region(pd, LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ, true);
      sink = region(pd, LOCAL_WRITE, true);
      stags[0] = exposed.stag();
      stags[1] = sink.stag();
      stags[2] = region(pd, REMOTE_READ, false).stag();
      stags[4] = region(otherPd, LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ, false).stag();
      MemoryRegion old = region(pd, LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ, false);
      stags[3] = old.stag();
      old.close();
      regions.remove(old);

      FramedStream end = FramedStream.builder().before(new Sink()).build(true, pd, null);
      channel = end.channel;
      DdpStream stream = end.stream;
      endpoint = new RdmapEndpoint(stream, this, 2, 2, 2, 2, rfc7306);
      ByteBuf posted = guarded(128);
      mayChange.add(true);
      endpoint.postReceive(1, new ByteBuf[] {posted.slice(GUARD, 64)}, 1);
      endpoint.postReceive(2, new ByteBuf[] {posted.slice(GUARD + 64, 32),
          posted.slice(GUARD + 96, 32)}, 2);
      endpoint.start();
      initial = snapshot();
    }

    private MemoryRegion region(ProtectionDomain owner, int access, boolean writable) {
      ByteBuf buf = guarded(SIZE);
      mayChange.add(writable);
      MemoryRegion r = owner.register(buf, GUARD, SIZE, access,
          RegionOptions.defaults().baseTo(BASE));
      regions.add(r);
      return r;
    }

    private ByteBuf guarded(int size) {
      ByteBuf buf = Unpooled.directBuffer(GUARD + size + GUARD);
      for (int i = 0; i < buf.capacity(); i++) {
        buf.setByte(i, 0x5A ^ i);
      }
      memory.add(buf);
      return buf;
    }

    private List<byte[]> snapshot() {
      List<byte[]> s = new ArrayList<>();
      for (ByteBuf m : memory) {
        byte[] b = new byte[m.capacity()];
        m.getBytes(0, b);
        s.add(b);
      }
      return s;
    }

    void checkInvariants() {
      List<byte[]> now = snapshot();
      for (int i = 0; i < now.size(); i++) {
        byte[] was = initial.get(i);
        byte[] is = now.get(i);
        for (int g = 0; g < GUARD; g++) {
          assertEquals(was[g], is[g], "guard octet " + g + " before buffer " + i);
          assertEquals(was[is.length - 1 - g], is[is.length - 1 - g],
              "guard octet " + g + " after buffer " + i);
        }
        if (!mayChange.get(i)) {
          assertArrayEquals(was, is, "buffer " + i + " may not be written but changed");
        }
        if (atEnd != null) {
          assertArrayEquals(atEnd.get(i), is, "buffer " + i + " changed after the stream ended");
        }
      }
      assertTrue(terminatesSent <= 1, terminatesSent + " Terminates sent");
    }

    private void ended() {
      if (atEnd == null) {
        atEnd = snapshot();
      }
    }

    @Override
    public void onSendComplete(long token) {
    }

    @Override
    public void onReadComplete(long token, long length) {
    }

    @Override
    public void onReceive(long bufferId, RdmapOpcode opcode, int length, int invalidatedStag) {
    }

    @Override
    public void onImmediateData(long bufferId, RdmapOpcode opcode, long data) {
    }

    @Override
    public void onTerminateSent(int layer, int errorType, int errorCode) {
      terminatesSent++;
      ended();
    }

    @Override
    public void onTerminateReceived(int layer, int errorType, int errorCode) {
      ended();
    }

    @Override
    public void onDisconnected(boolean graceful) {
      ended();
    }

    @Override
    public void close() {
      channel.finishAndReleaseAll();
      String unreleased = input.unreleased();
      input.releaseRemaining();
      for (MemoryRegion r : regions) {
        r.close();
      }
      for (ByteBuf m : memory) {
        m.release();
      }
      pd.close();
      otherPd.close();
      assertNull(unreleased);
    }
  }
}
