package io.iwarp4j.ddp.fuzz;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.iwarp4j.ddp.DdpError;
import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.DdpStreamListener;
import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.RegionOptions;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.ddp.testing.FramedStream;
import io.iwarp4j.mpa.FpduDeframer;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.mpa.fuzz.ByteCursor;
import io.iwarp4j.mpa.fuzz.FuzzInput;
import io.iwarp4j.mpa.testing.ReferenceFpdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Coverage-guided fuzzing of DDP header validation and placement (RFC 5041 §7.1, §7.2): a real
 * {@link DdpStream} behind a real {@link FpduDeframer}, a real {@link StagTable} and regions of
 * {@value #SIZE} octets, each between {@value #GUARD} guard octets.
 *
 * <p>Input layout ({@link ByteCursor}): a segment count (0-8), then per segment a selector octet,
 * a 16-bit TO choice, a 16-bit length and the ULPDU octets; then 16-bit read sizes. The selector
 * lets the fuzzer reach the STag checks at once: for a tagged segment (T bit set) bits 0-2 replace
 * the STag with one of the test's (writable, read-only, other PD, invalidated, stale key after
 * re-registration, local-write-only), bit 3 replaces the TO with one near the region's base.
 *
 * <p>Invariants: no exception escapes; no guard octet ever changes; only regions the segment's
 * STag grants REMOTE_WRITE (or LOCAL_WRITE for a Read Response) and the posted receive buffer
 * change; once the stream reported an error, no octet changes anymore and nothing more is
 * delivered; at most one DDP error; every read buffer is released.
 */
class DdpPlacementFuzzTest {
  static final int GUARD = 16;
  static final int SIZE = 256;
  static final long BASE = 0x10000;
  private static final int RDMAP_WRITE = 0x40;
  private static final int RDMAP_READ_RESPONSE = 0x42;

  @FuzzTest(maxDuration = "60s")
  void placeSegments(byte[] fuzz) {
    ByteCursor data = new ByteCursor(fuzz);
    Fixture f = new Fixture();
    try {
      List<byte[]> ulpdus = new ArrayList<>();
      int count = data.u8() % 9;
      for (int i = 0; i < count; i++) {
        int selector = data.u8();
        int toChoice = data.u16();
        byte[] u = data.bytes(data.intIn(0, 2 * SIZE + 64));
        if (u.length >= 14 && (u[0] & 0x80) != 0) {
          int pick = selector & 7;
          if (pick != 0 && pick <= f.stags.length) {
            putInt(u, 2, f.stags[pick - 1]);
          }
          if ((selector & 8) != 0) {
            putLong(u, 6, BASE - 8 + toChoice % (SIZE + 16));
          }
        }
        ulpdus.add(u);
      }
      byte[] wire = ReferenceFpdu.encode(ulpdus, false, false);
      f.input.feed(f.channel, data, wire, 700, f::checkInvariants);
      f.channel.checkException();
      f.checkInvariants();
      assertTrue(f.listener.errors <= 1, f.listener.errors + " DDP errors");
    } finally {
      f.close();
    }
  }

  private static void putInt(byte[] b, int at, int v) {
    for (int i = 0; i < 4; i++) {
      b[at + i] = (byte) (v >>> (24 - 8 * i));
    }
  }

  private static void putLong(byte[] b, int at, long v) {
    for (int i = 0; i < 8; i++) {
      b[at + i] = (byte) (v >>> (56 - 8 * i));
    }
  }

  /** One stream, its regions and guards, and the snapshots the invariants compare against. */
  private static final class Fixture implements AutoCloseable {
    final StagTable table = new StagTable(6, new SplittableRandom(7306), Duration.ofSeconds(5));
    final ProtectionDomain pd = table.newProtectionDomain();
    final ProtectionDomain otherPd = table.newProtectionDomain();
    final List<ByteBuf> memory = new ArrayList<>();
    final List<MemoryRegion> regions = new ArrayList<>();
    /** Which memory buffers a segment may legitimately change (granted a write right). */
    final List<Boolean> writable = new ArrayList<>();
    /** writable, read-only, other PD, invalidated, stale, local-write only. */
    final int[] stags = new int[6];
    final EmbeddedChannel channel;
    final Listener listener = new Listener();
    final DdpStream stream;
    final FuzzInput input = new FuzzInput();
    final List<byte[]> initial;
    List<byte[]> atError;

    Fixture() {
      stags[0] = region(pd, LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ, true).stag();
      stags[1] = region(pd, REMOTE_READ, false).stag();
      stags[2] = region(otherPd, LOCAL_WRITE | REMOTE_WRITE, false).stag();
      MemoryRegion invalid = region(pd, LOCAL_WRITE | REMOTE_WRITE, false);
      invalid.invalidate();
      stags[3] = invalid.stag();
      MemoryRegion old = region(pd, LOCAL_WRITE | REMOTE_WRITE, false);
      stags[4] = old.stag();
      // The last fresh slot, so that the freed one is what the next registration gets.
      stags[5] = region(pd, LOCAL_WRITE, true).stag();
      old.close();
      regions.remove(old);
      // The same index again, with a new key: only the new STag may write here.
      MemoryRegion reused = region(pd, LOCAL_WRITE | REMOTE_WRITE, true);
      if (StagTable.slotOf(reused.stag(), table.capacity())
          != StagTable.slotOf(stags[4], table.capacity())) {
        throw new AssertionError("the freed slot was not reused");
      }

      FramedStream end = FramedStream.builder().build(false, pd, listener);
      channel = end.channel;
      stream = end.stream;
      ByteBuf posted = guarded(64);
      writable.add(true);
      stream.enableReceiveQueue(0, 4, 1).post(posted, GUARD, 64, 1);
      stream.enableControlQueue(1, 28);
      stream.enableControlQueue(2, 52);
      stream.enableReceiveQueue(3, 1, 1);
      stream.start();
      initial = snapshot();
      listener.onError = () -> atError = snapshot();
    }

    private MemoryRegion region(ProtectionDomain owner, int access, boolean mayChange) {
      ByteBuf buf = guarded(SIZE);
      writable.add(mayChange);
      MemoryRegion r = owner.register(buf, GUARD, SIZE, access,
          RegionOptions.defaults().baseTo(BASE));
      regions.add(r);
      return r;
    }

    private ByteBuf guarded(int size) {
      ByteBuf buf = Unpooled.directBuffer(GUARD + size + GUARD);
      for (int i = 0; i < buf.capacity(); i++) {
        buf.setByte(i, 0xA5 ^ i);
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
          int tail = is.length - 1 - g;
          assertEquals(was[tail], is[tail], "guard octet " + g + " after buffer " + i);
        }
        if (!writable.get(i)) {
          assertArrayEquals(was, is, "buffer " + i + " has no write right but changed");
        }
        if (atError != null) {
          assertArrayEquals(atError.get(i), is, "buffer " + i + " changed after the error");
        }
      }
      assertTrue(!listener.deliveredAfterError, "a message was delivered after the error");
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

  /** Records deliveries and errors; asks RDMAP's rights for a Write and a Read Response. */
  private static final class Listener implements DdpStreamListener {
    int errors;
    boolean deliveredAfterError;
    Runnable onError = () -> { };

    @Override
    public boolean acceptTagged(int rsvdUlp, Ulpdu segment) {
      return rsvdUlp == RDMAP_WRITE || rsvdUlp == RDMAP_READ_RESPONSE;
    }

    @Override
    public void onTaggedMessage(int rsvdUlp, int stag, long to, long length) {
      deliveredAfterError |= errors > 0;
    }

    @Override
    public void onUntaggedMessage(int qn, int msn, long rsvdUlp, int length, long bufferId) {
      deliveredAfterError |= errors > 0;
    }

    @Override
    public void onControlMessage(int qn, int msn, long rsvdUlp, ByteBuf message) {
      deliveredAfterError |= errors > 0;
    }

    @Override
    public void onDdpError(DdpError error, Ulpdu segment, int headerLength) {
      if (errors++ == 0) {
        onError.run();
      }
    }

    @Override
    public void onMpaError(MpaException error) {
    }

    @Override
    public void onInputClosed() {
    }
  }
}
