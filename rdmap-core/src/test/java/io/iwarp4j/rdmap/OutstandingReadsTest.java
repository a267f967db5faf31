package io.iwarp4j.rdmap;

import static io.iwarp4j.rdmap.OutstandingReads.ResponseCheck.NO_READ_OUTSTANDING;
import static io.iwarp4j.rdmap.OutstandingReads.ResponseCheck.OK;
import static io.iwarp4j.rdmap.OutstandingReads.ResponseCheck.OUT_OF_RANGE;
import static io.iwarp4j.rdmap.OutstandingReads.ResponseCheck.WRONG_STAG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The requester's ORD ring and its check of Read Response segments against the oldest Read. */
class OutstandingReadsTest {
  private static final int STAG = 0x1234_5678;
  private static final long TO = 0x10_0000L;

  @Test
  void ordBoundsTheReadsInFlight() {
    OutstandingReads reads = new OutstandingReads(2);
    reads.add(0, STAG, TO, 10);
    assertTrue(reads.canIssue());
    reads.add(1, STAG, TO, 10);
    assertFalse(reads.canIssue());
    assertThrows(IllegalStateException.class, () -> reads.add(2, STAG, TO, 10));
    assertEquals(0, reads.completeOldest());
    assertTrue(reads.canIssue());
    assertEquals(1, reads.size());
  }

  @Test
  void ordZeroIssuesNothing() {
    OutstandingReads reads = new OutstandingReads(0);
    assertFalse(reads.canIssue());
    assertEquals(NO_READ_OUTSTANDING, reads.checkSegment(STAG, TO, 0, true));
  }

  @Test
  void theRingGrowsUpToOrdKeepingTheOldestReadPartlyPlacedAndTheOrder() {
    OutstandingReads reads = new OutstandingReads(16);
    reads.add(100, STAG, TO, 10);
    reads.add(101, STAG, TO + 10, 10);
    assertEquals(100, reads.completeOldest()); // head moves, so the entries below wrap
    for (int i = 2; i < 6; i++) {
      reads.add(100 + i, STAG, TO + 10L * i, 10);
    }
    assertEquals(OK, reads.checkSegment(STAG, TO + 10, 4, false)); // 101 partly placed
    for (int i = 6; i < 17; i++) { // past 4 and 8 entries, to ORD
      reads.add(100 + i, STAG, TO + 10L * i, 10);
    }
    assertEquals(16, reads.size());
    assertFalse(reads.canIssue());
    assertEquals(OUT_OF_RANGE, reads.checkSegment(STAG, TO + 10, 6, true), "placed octets kept");
    assertEquals(OK, reads.checkSegment(STAG, TO + 14, 6, true));
    for (int i = 1; i < 17; i++) {
      if (i > 1) {
        assertEquals(OK, reads.checkSegment(STAG, TO + 10L * i, 10, true));
      }
      assertEquals(100 + i, reads.completeOldest());
    }
  }

  @Test
  void segmentsMustContinueTheOldestReadExactly() {
    OutstandingReads reads = new OutstandingReads(4);
    reads.add(7, STAG, TO, 100);
    reads.add(8, STAG + 1, TO + 500, 50);
    assertEquals(WRONG_STAG, reads.checkSegment(STAG + 1, TO, 10, false), "not the oldest's");
    assertEquals(OUT_OF_RANGE, reads.checkSegment(STAG, TO + 1, 10, false), "a gap");
    assertEquals(OK, reads.checkSegment(STAG, TO, 60, false));
    assertEquals(OUT_OF_RANGE, reads.checkSegment(STAG, TO + 60, 41, true), "one octet over");
    assertEquals(OUT_OF_RANGE, reads.checkSegment(STAG, TO + 60, 39, true), "one octet short");
    assertEquals(OUT_OF_RANGE, reads.checkSegment(STAG, TO, 40, true), "a repeat");
    assertEquals(OK, reads.checkSegment(STAG, TO + 60, 40, true));
    assertEquals(7, reads.completeOldest());
    assertEquals(OK, reads.checkSegment(STAG + 1, TO + 500, 50, true));
    assertEquals(8, reads.completeOldest());
    assertEquals(NO_READ_OUTSTANDING, reads.checkSegment(STAG, TO, 1, true));
    assertThrows(IllegalStateException.class, reads::completeOldest);
  }

  @Test
  void aZeroLengthReadTakesOneEmptyLastSegmentWithAnyStagAndTo() {
    OutstandingReads reads = new OutstandingReads(1);
    reads.add(3, STAG, TO, 0);
    assertEquals(OUT_OF_RANGE, reads.checkSegment(STAG, TO, 1, true));
    assertEquals(OUT_OF_RANGE, reads.checkSegment(STAG, TO, 0, false));
    assertEquals(OK, reads.checkSegment(0, 0, 0, true), "RFC 5041 §5.2: not checked");
  }

  @Test
  void aReadOfTwoToTheThirtyTwoMinusOneOctets() {
    OutstandingReads reads = new OutstandingReads(1);
    long max = 0xFFFF_FFFFL;
    reads.add(0, STAG, TO, max);
    assertEquals(OK, reads.checkSegment(STAG, TO, 65_000, false));
    assertEquals(OUT_OF_RANGE, reads.checkSegment(STAG, TO + 65_000, 65_000, true));
  }
}
