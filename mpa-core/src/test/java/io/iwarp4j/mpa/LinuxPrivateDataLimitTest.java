package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.slf4j.event.EventRecordingLogger;
import org.slf4j.event.Level;
import org.slf4j.event.SubstituteLoggingEvent;
import org.slf4j.helpers.SubstituteLogger;

/**
 * Private data beyond Linux siw's 256 octets in all is a warning that names the limit, the size
 * and the mode, at connect (Request) and at accept (Reply); within it, nothing is said. The
 * handlers log to an SLF4J EventRecordingLogger, which records each event.
 */
class LinuxPrivateDataLimitTest {
  private final Queue<SubstituteLoggingEvent> events = new ConcurrentLinkedQueue<>();
  private final EventRecordingLogger log = new EventRecordingLogger(
      new SubstituteLogger("test", events, false), events);

  @Test
  void theThresholdCountsTheEnhancedOctets() {
    assertNull(LinuxPrivateDataLimit.warning("MPA Request", 252, true));
    assertEquals("MPA Request carries 257 octets of private data in all (253 of the"
        + " application's + 4 of RFC 6581 IRD/ORD data: enhanced mode); Linux siw accepts at"
        + " most 256 octets in all (the application may send 252 in this mode) and closes the"
        + " connection without a Reply beyond that. Not an error: RFC 5044 §7.1.1 allows 512",
        LinuxPrivateDataLimit.warning("MPA Request", 253, true));
    assertNull(LinuxPrivateDataLimit.warning("MPA Request", 256, false));
    assertEquals("MPA Request carries 257 octets of private data in all (257 of the"
        + " application's: basic mode, no enhanced data); Linux siw accepts at most 256 octets in"
        + " all (the application may send 256 in this mode) and closes the connection without a"
        + " Reply beyond that. Not an error: RFC 5044 §7.1.1 allows 512",
        LinuxPrivateDataLimit.warning("MPA Request", 257, false));
  }

  @Test
  void aRequestBeyondTheLimitIsAWarningAndStillSent() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(
        MpaSettings.builder().privateData(new byte[256]).build(), log);
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      pair.shuttle();
      assertTrue(ih.handshakeFuture().isSuccess(), "RFC 5044 allows it: the startup goes on");
      List<String> warnings = warnings();
      assertEquals(1, warnings.size(), warnings.toString());
      String w = warnings.get(0);
      assertTrue(w.contains("MPA Request carries 260 octets of private data in all (256 of the"
          + " application's + 4 of RFC 6581 IRD/ORD data: enhanced mode)"), w);
      assertTrue(w.contains("Linux siw accepts at most 256 octets"), w);
    }
  }

  @Test
  void aRequestWithinTheLimitSaysNothing() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(
        MpaSettings.builder().privateData(new byte[252]).build(), log);
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      pair.shuttle();
      assertTrue(ih.handshakeFuture().isSuccess());
      assertEquals(List.of(), warnings());
    }
  }

  @Test
  void aReplyBeyondTheLimitIsAWarningNamingTheMode() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(
        MpaSettings.builder().revision(1).build());
    MpaResponderHandler rh = new MpaResponderHandler(
        MpaSettings.builder().privateData(new byte[300]).build(), true, log);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      pair.shuttle();
      assertTrue(ih.handshakeFuture().isSuccess());
      List<String> warnings = warnings();
      assertEquals(1, warnings.size(), warnings.toString());
      assertTrue(warnings.get(0).contains("MPA Reply carries 300 octets of private data in all"
          + " (300 of the application's: basic mode, no enhanced data)"), warnings.get(0));
    }
  }

  private List<String> warnings() {
    List<String> out = new ArrayList<>();
    for (SubstituteLoggingEvent e : events) {
      if (e.getLevel() == Level.WARN) {
        Object[] args = e.getArgumentArray();
        out.add(String.valueOf(args[args.length - 1]));
      }
    }
    return out;
  }
}
