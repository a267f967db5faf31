package io.iwarp4j.ddp.mem;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static io.iwarp4j.ddp.mem.MemTestSupport.seedNote;
import static io.iwarp4j.ddp.mem.MemTestSupport.seededTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * STags are hard to guess (RFC 5040 §8.1.1; docs/reliability.md "STag security"): knowing live
 * or stale STags, a peer hits another live STag no more often than a uniform guess over the
 * table's random STag bits would. Every count here comes from a seeded generator, so each run
 * sees the same numbers.
 */
class StagSecurityTest {
  private static final int RW = LOCAL_WRITE | REMOTE_WRITE;

  /**
   * A peer that knows k live STags tries every key of the index on either side of each. With
   * sequential indexes (the old table) a neighbour is live nearly always and one key in 256
   * hits: about 2 hits per known STag, 4,096 here. With random slots and random index bits the
   * expected count is guesses × (k / capacity) × 2^-(random bits), about one.
   */
  @Test
  void neighboursOfKnownStagsAreLiveNoMoreOftenThanAUniformGuess() {
    int capacity = 4096; // 13 slot bits: 11 random index bits + 8 key bits per STag
    int live = 2048;
    StagTable table = seededTable(capacity, 20);
    List<MemoryRegion> regions = new ArrayList<>();
    try (ProtectionDomain pd = table.newProtectionDomain()) {
      for (int i = 0; i < live; i++) {
        regions.add(pd.allocate(8, RW));
      }
      long guesses = 0;
      int hits = 0;
      for (MemoryRegion known : regions) {
        int index = StagTable.indexOf(known.stag());
        for (int neighbour : new int[] {index - 1, index + 1}) {
          for (int key = 0; key < 256; key++) {
            guesses++;
            if (table.lookup((neighbour & 0xFF_FFFF) << 8 | key) != null) {
              hits++;
            }
          }
        }
      }
      int randomBits = 24 - 13 + 8;
      double expected = guesses * ((double) live / capacity) / (1 << randomBits);
      assertTrue(hits <= 4 * expected + 4, hits + " hits in " + guesses + " guesses, uniform "
          + "expectation " + expected + seedNote());
      regions.forEach(MemoryRegion::close);
    }
  }

  /** The STag after a re-registration of a slot tells nothing of the stale one: spread out. */
  @Test
  void theStagAfterAReRegistrationIsNotPredictableFromTheStaleOne() {
    StagTable table = seededTable(1, 21);
    Set<Integer> keyDifferences = new HashSet<>();
    Set<Integer> indexes = new HashSet<>();
    int stale = 0;
    int staleHits = 0;
    try (ProtectionDomain pd = table.newProtectionDomain()) {
      for (int i = 0; i < 4096; i++) {
        try (MemoryRegion r = pd.allocate(16, RW)) {
          if (stale != 0) {
            assertNotEquals(stale, r.stag(), "the stale STag came straight back");
            keyDifferences.add((StagTable.keyOf(r.stag()) - StagTable.keyOf(stale)) & 0xFF);
          } else {
            stale = r.stag(); // the first one: a peer keeps it and tries it on every later one
          }
          indexes.add(StagTable.indexOf(r.stag()));
          staleHits += r.stag() == stale && i > 0 ? 1 : 0;
        }
      }
      assertNull(table.lookup(stale));
    }
    // 4,095 draws of a key: every difference seen; a counter or a fixed step gives one.
    assertTrue(keyDifferences.size() > 200, keyDifferences.size() + " key differences" + seedNote());
    // 23 random index bits: 4,096 draws do not repeat an index more than a few times.
    assertTrue(indexes.size() > 4000, indexes.size() + " distinct indexes" + seedNote());
    assertEquals(0, staleHits, "the first STag came back" + seedNote());
  }

  /**
   * A fast-register region's keys: each of the 256 once before any repeats, in an order that a
   * run of them does not tell (the old table stepped by a fixed secret odd step: one difference).
   */
  @Test
  void fastRegisterKeysFollowNoFixedStep() {
    StagTable table = seededTable(4, 22);
    try (ProtectionDomain pd = table.newProtectionDomain();
        FastRegisterRegion fr = pd.allocateFastRegister(64)) {
      Set<Integer> keys = new HashSet<>();
      Set<Integer> differences = new HashSet<>();
      int previous = fr.stag();
      keys.add(StagTable.keyOf(previous));
      for (int i = 0; i < 255; i++) {
        int next = fr.nextStag();
        assertEquals(StagTable.indexOf(previous), StagTable.indexOf(next), "same index");
        assertTrue(keys.add(StagTable.keyOf(next)), "key repeated after " + i);
        differences.add((StagTable.keyOf(next) - StagTable.keyOf(previous)) & 0xFF);
        previous = next;
      }
      assertTrue(differences.size() > 64, differences.size() + " key differences" + seedNote());
      // The next round starts a new order, never with the key just handed out.
      assertNotEquals(StagTable.keyOf(previous), StagTable.keyOf(fr.nextStag()));
    }
  }
}
