package io.iwarp4j.ddp.mem;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * STag keys are not predictable (docs/reliability.md "STag security"): the first key of a slot is
 * random, and a re-registration of the same slot does not simply take the stale key plus one, so
 * a peer holding an old STag cannot compute the STag of the region that replaced it; and the stale
 * STag itself stays refused for the slot's next 255 registrations.
 */
class StagSecurityTest {
  private static final int RW = LOCAL_WRITE | REMOTE_WRITE;
  private static final int TABLES = 200;

  /** The key that follows a stale one, over many slots: spread out, not stale + constant. */
  @Test
  void theKeyAfterAReRegistrationIsNotPredictableFromTheStaleStag() {
    SecureRandom random = new SecureRandom();
    Set<Integer> differences = new HashSet<>();
    Set<Integer> firstKeys = new HashSet<>();
    int plusOne = 0;
    for (int t = 0; t < TABLES; t++) {
      StagTable table = new StagTable(1, random, Duration.ofSeconds(1));
      try (ProtectionDomain pd = table.newProtectionDomain()) {
        MemoryRegion old = pd.allocate(16, RW);
        int stale = old.stag();
        old.close();
        try (MemoryRegion again = pd.allocate(16, RW)) {
          assertEquals(StagTable.indexOf(stale), StagTable.indexOf(again.stag()), "same slot");
          int diff = (StagTable.keyOf(again.stag()) - StagTable.keyOf(stale)) & 0xFF;
          assertTrue(diff != 0, "the stale key came straight back");
          differences.add(diff);
          firstKeys.add(StagTable.keyOf(stale));
          plusOne += diff == 1 ? 1 : 0;
          assertNull(table.lookup(stale), "the stale STag names the new region");
        }
      }
    }
    // 200 draws of a step from 128 odd values give ~100 distinct ones; plus-one gives one.
    assertTrue(differences.size() > 48, differences.size() + " distinct key steps");
    assertTrue(plusOne < TABLES / 8, plusOne + " of " + TABLES + " re-registrations were key + 1");
    // 200 draws from 256 give ~140 distinct first keys; a counter or a constant far fewer.
    assertTrue(firstKeys.size() > 64, firstKeys.size() + " distinct first keys");
  }

  /** A stale STag is refused for every one of the slot's next 255 registrations. */
  @Test
  void aStaleStagIsRefusedForTheNext255RegistrationsOfItsSlot() {
    StagTable table = new StagTable(1, new SecureRandom(), Duration.ofSeconds(1));
    try (ProtectionDomain pd = table.newProtectionDomain()) {
      MemoryRegion old = pd.allocate(16, RW);
      int stale = old.stag();
      old.close();
      Set<Integer> keys = new HashSet<>();
      keys.add(StagTable.keyOf(stale));
      for (int i = 0; i < 255; i++) {
        try (MemoryRegion again = pd.allocate(16, RW)) {
          assertTrue(keys.add(StagTable.keyOf(again.stag())), "a key came back after " + i);
          assertEquals(StagCheck.INVALID_STAG,
              table.check(stale, again.baseTo(), 1, REMOTE_WRITE, pd), "registration " + i);
        }
      }
    }
  }
}
