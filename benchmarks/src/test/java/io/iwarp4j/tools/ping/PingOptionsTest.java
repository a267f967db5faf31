package io.iwarp4j.tools.ping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.RtrType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** rping's command line, and iwarp-ping's clean usage errors. */
class PingOptionsTest {
  @Test
  void rpingStyleClient() {
    PingOptions o = PingOptions.parse("-c", "-vV", "-a", "10.0.2.15", "-p7174", "-C", "100",
        "-S", "4096");
    assertFalse(o.isServer());
    assertTrue(o.verbose);
    assertTrue(o.validate);
    assertEquals("10.0.2.15", o.address);
    assertEquals(7174, o.port);
    assertEquals(100, o.count());
    assertEquals(4096, o.size());
    assertTrue(o.crc());
    assertNull(o.p2p());
    assertEquals(Duration.ofMillis(PingOptions.DEFAULT_FIRST_FPDU_DELAY_MS), o.firstFpduDelay());
  }

  @Test
  void serverDefaultsAndLongOptions() {
    PingOptions o = PingOptions.parse("-s", "-P", "--no-crc");
    assertTrue(o.isServer());
    assertTrue(o.persistent);
    assertEquals("0.0.0.0", o.address);
    assertEquals(PingOptions.DEFAULT_PORT, o.port);
    assertFalse(o.crc());
    assertEquals(64, o.size());
    assertEquals(0, o.count());
  }

  @Test
  void peerToPeerAndQuietPeriod() {
    assertEquals(EnumSet.of(RtrType.WRITE), PingOptions.parse("-c", "-a", "h", "--p2p").p2p());
    assertEquals(EnumSet.of(RtrType.WRITE),
        PingOptions.parse("-c", "-a", "h", "--p2p=write").p2p());
    assertEquals(EnumSet.of(RtrType.READ), PingOptions.parse("-c", "-a", "h", "--p2p=read").p2p());
    assertEquals(Duration.ZERO,
        PingOptions.parse("-c", "-a", "h", "--first-fpdu-delay=0").firstFpduDelay());
    assertEquals("imm", PingOptions.parse("-c", "-a", "h", "--probe-rfc7306=imm").probe7306);
  }

  @Test
  void streamAfterRtr() {
    assertEquals(0, PingOptions.parse("-c", "-a", "h", "--p2p").streamAfterRtr());
    assertEquals(1000, PingOptions.parse("-c", "-a", "h", "--p2p=read",
        "--stream-after-rtr=1000").streamAfterRtr());
    assertEquals(8, PingOptions.parse("-s", "--stream-after-rtr=8").streamAfterRtr());
    assertMessage("--stream-after-rtr is for a peer-to-peer connection: add"
        + " --p2p[=write|read|send]", "-c", "-a", "h", "--stream-after-rtr=10");
    assertMessage("invalid --stream-after-rtr 0 (valid range is 1 to 4096)", "-s",
        "--stream-after-rtr=0");
    assertMessage("invalid --stream-after-rtr 4097 (valid range is 1 to 4096)", "-s",
        "--stream-after-rtr=4097");
    assertMessage("--stream-after-rtr=4096 with -S 65535 needs more than 64 MiB per direction",
        "-s", "-S", "65535", "--stream-after-rtr=4096");
    assertMessage("--stream-after-rtr and --probe-rfc7306 exclude each other", "-c", "-a", "h",
        "--p2p", "--stream-after-rtr=2", "--probe-rfc7306=imm");
  }

  @Test
  void usageErrorsNameTheProblem() {
    assertMessage("give exactly one of -s (server) and -c (client)", "-v");
    assertMessage("give exactly one of -s (server) and -c (client)", "-s", "-c");
    assertMessage("the client needs -a addr", "-c");
    assertMessage("invalid -S 25 (valid range is 26 to 65535)", "-c", "-a", "h", "-S", "25");
    assertMessage("-C takes a number, not 'x'", "-c", "-a", "h", "-C", "x");
    assertMessage("option -p needs a value", "-s", "-p");
    assertMessage("unknown option -q", "-s", "-q");
    assertMessage("--p2p takes write, read or send, not 'both'", "-c", "-a", "h", "--p2p=both");
    assertMessage("-P is a server option", "-c", "-P", "-a", "h");
    assertMessage("--probe-rfc7306 takes fetch-add or imm, not 'cas'", "-c", "-a", "h",
        "--probe-rfc7306=cas");
    assertMessage("--probe-rfc7306 is a client option", "-s", "--probe-rfc7306=imm");
  }

  @Test
  void aUsageErrorExitsWithTwoAndNoStackTrace() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = IwarpPing.run(new String[] {"-c"}, new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err, true, StandardCharsets.UTF_8), a -> { });
    assertEquals(2, rc);
    String text = err.toString(StandardCharsets.UTF_8);
    assertEquals("iwarp-ping: the client needs -a addr (iwarp-ping --help for usage)\n", text);
  }

  @Test
  void anUnknownOptionOrArgumentIsOneLineAndStatusTwo() {
    for (String[] args : new String[][] {{"-s", "--bogus"}, {"-c", "-a", "h", "extra"}}) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int rc = IwarpPing.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
          new PrintStream(err, true, StandardCharsets.UTF_8), a -> { });
      assertEquals(2, rc);
      String text = err.toString(StandardCharsets.UTF_8);
      assertEquals(1, text.lines().count(), text);
      assertTrue(text.contains(args[args.length - 1]), text);
      assertEquals("", out.toString(StandardCharsets.UTF_8));
    }
  }

  @Test
  void helpGoesToStdoutWithStatusZero() {
    for (String h : new String[] {"--help", "-h"}) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int rc = IwarpPing.run(new String[] {"-s", h},
          new PrintStream(out, true, StandardCharsets.UTF_8),
          new PrintStream(err, true, StandardCharsets.UTF_8), a -> { });
      assertEquals(0, rc);
      assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("usage: iwarp-ping"),
          out.toString(StandardCharsets.UTF_8));
      assertEquals("", err.toString(StandardCharsets.UTF_8));
    }
  }

  private static void assertMessage(String message, String... args) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PingOptions.parse(args));
    assertEquals(message, e.getMessage());
  }
}
