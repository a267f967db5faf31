package io.iwarp4j.ddp.mem;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_ATOMIC;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AccessFlagsTest {

  @Test
  void everyCombinationIsLegalExactlyWhenRemoteWriteAndAtomicComeWithLocalWrite() {
    for (int access = 0; access < 16; access++) {
      boolean legal = (access & (REMOTE_WRITE | REMOTE_ATOMIC)) == 0 || (access & LOCAL_WRITE) != 0;
      int a = access;
      if (legal) {
        assertEquals(access, AccessFlags.validate(access), AccessFlags.toString(access));
      } else {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AccessFlags.validate(a));
        assertTrue(e.getMessage().contains("without LOCAL_WRITE"), e.getMessage());
      }
    }
  }

  @Test
  void refusalNamesTheOffendingFlags() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> AccessFlags.validate(REMOTE_WRITE | REMOTE_READ));
    assertTrue(e.getMessage().contains("grants REMOTE_WRITE without LOCAL_WRITE"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> AccessFlags.validate(REMOTE_ATOMIC));
    assertTrue(e.getMessage().contains("grants REMOTE_ATOMIC without LOCAL_WRITE"), e.getMessage());
  }

  @Test
  void unknownBitsAreRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AccessFlags.validate(0x40 | 1));
    assertTrue(e.getMessage().contains("unknown access flag bits 0x40"), e.getMessage());
  }

  @Test
  void namesAndAllows() {
    assertEquals("NONE", AccessFlags.toString(0));
    assertEquals("LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC", AccessFlags.toString(15));
    assertEquals("REMOTE_READ|0x100", AccessFlags.toString(REMOTE_READ | 0x100));
    assertTrue(AccessFlags.allows(LOCAL_WRITE | REMOTE_WRITE, REMOTE_WRITE));
    assertTrue(AccessFlags.allows(REMOTE_READ, 0));
    assertFalse(AccessFlags.allows(LOCAL_WRITE | REMOTE_READ, REMOTE_WRITE));
    assertFalse(AccessFlags.allows(LOCAL_WRITE, LOCAL_WRITE | REMOTE_READ));
  }
}
