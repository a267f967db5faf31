package io.iwarp4j.tools.ping;

import io.iwarp4j.verbs.RtrType;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * The command line of {@code iwarp-ping}: rping's options ({@code -s|-c -a addr -p port -C count
 * -S size -v -V -d -P}, single-letter flags may be combined as in {@code -vV}) plus iwarp4j's
 * long options.
 */
public final class PingOptions {
  /** rping's default port. */
  public static final int DEFAULT_PORT = 7174;

  static final String USAGE = String.join("\n",
      "usage: iwarp-ping -s [-vVdP] [-S size] [-C count] [-a addr] [-p port] [long options]",
      "       iwarp-ping -c [-vVd] [-S size] [-C count] -a addr [-p port] [long options]",
      "  -c                 client side",
      "  -s                 server side (-a defaults to 0.0.0.0)",
      "  -P                 persistent server: serve one connection after another",
      "  -v                 display ping data to stdout",
      "  -V                 validate ping data (client)",
      "  -d                 debug output, stack traces on errors",
      "  -S size            ping data size, " + PingData.MIN_SIZE + ".." + PingData.MAX_SIZE
          + " (default 64)",
      "  -C count           ping count times (default: until interrupted)",
      "  -a addr            address",
      "  -p port            port (default " + DEFAULT_PORT + ")",
      "  --crc | --no-crc   ask for MPA CRC (default) or not; the server imposes it with --crc",
      "  --p2p[=write|read] client: RFC 6581 peer-to-peer mode with this RTR (default write)",
      "  --markers          client: ask for MPA markers (peers without them reject: see docs)",
      "  --first-fpdu-delay=MS  client: quiet period after the MPA Reply (default "
          + PingOptions.DEFAULT_FIRST_FPDU_DELAY_MS + "; Linux siw needs one)",
      "  --timeout=S        bound on every wait (default 30)",
      "  --connections=N    client: run N times over fresh connections in this JVM (warm",
      "                     code paths; measures connection set-up races), report ok/N",
      "  --probe-rfc7306=fetch-add|imm  client: instead of pinging, send one RFC 7306",
      "                     operation and report how a peer without RFC 7306 refuses it",
      "  --stream-after-rtr=N  instead of pinging: post N receives, then N Sends of -S octets",
      "                     back to back the moment the connection is established (the",
      "                     client right after its --p2p RTR), and take the peer's N; -V",
      "                     checks each message. Peers: iwarp-ping -s with the same N and",
      "                     -S, or rdma-core's ucmatose -C N -S size (1.." + PingStream.MAX_MESSAGES
          + " messages)");

  /** The client's default quiet period after the MPA Reply: see docs/interop.md. */
  public static final int DEFAULT_FIRST_FPDU_DELAY_MS = 50;

  boolean server;
  boolean client;
  boolean persistent;
  String address;
  int port = DEFAULT_PORT;
  int count;
  int size = 64;
  boolean verbose;
  boolean validate;
  boolean debug;
  boolean crc = true;
  boolean markers;
  Set<RtrType> p2p;
  Duration firstFpduDelay = Duration.ofMillis(DEFAULT_FIRST_FPDU_DELAY_MS);
  Duration timeout = Duration.ofSeconds(30);
  String probe7306;
  int connections = 1;
  int streamAfterRtr;

  private PingOptions() {
  }

  /**
   * Parses a command line.
   *
   * @param args the arguments after the subcommand
   * @return the options
   * @throws IllegalArgumentException naming the problem, for a usage error
   */
  public static PingOptions parse(String... args) {
    PingOptions o = new PingOptions();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.startsWith("--")) {
        o.longOption(a);
      } else if (a.startsWith("-") && a.length() > 1) {
        for (int k = 1; k < a.length(); k++) {
          char f = a.charAt(k);
          if ("apCS".indexOf(f) >= 0) {
            String v = k + 1 < a.length() ? a.substring(k + 1) : null;
            if (v == null) {
              if (++i >= args.length) {
                throw new IllegalArgumentException("option -" + f + " needs a value");
              }
              v = args[i];
            }
            o.valueOption(f, v);
            break;
          }
          o.flag(f);
        }
      } else {
        throw new IllegalArgumentException("unexpected argument '" + a + "'");
      }
    }
    o.check();
    return o;
  }

  private void flag(char f) {
    switch (f) {
      case 's' -> server = true;
      case 'c' -> client = true;
      case 'P' -> persistent = true;
      case 'v' -> verbose = true;
      case 'V' -> validate = true;
      case 'd' -> debug = true;
      default -> throw new IllegalArgumentException("unknown option -" + f);
    }
  }

  private void valueOption(char f, String v) {
    switch (f) {
      case 'a' -> address = v;
      case 'p' -> port = intValue("-p", v, 1, 65535);
      case 'C' -> count = intValue("-C", v, 0, Integer.MAX_VALUE);
      case 'S' -> size = intValue("-S", v, PingData.MIN_SIZE, PingData.MAX_SIZE);
      default -> throw new IllegalArgumentException("unknown option -" + f);
    }
  }

  private void longOption(String a) {
    String name = a;
    String value = null;
    int eq = a.indexOf('=');
    if (eq > 0) {
      name = a.substring(0, eq);
      value = a.substring(eq + 1);
    }
    switch (name) {
      case "--crc" -> crc = noValue(name, value, true);
      case "--no-crc" -> crc = noValue(name, value, false);
      case "--markers" -> markers = noValue(name, value, true);
      case "--p2p" -> {
        if (value == null || value.equals("write")) {
          p2p = EnumSet.of(RtrType.WRITE);
        } else if (value.equals("read")) {
          p2p = EnumSet.of(RtrType.READ);
        } else if (value.equals("send")) {
          p2p = EnumSet.of(RtrType.SEND);
        } else {
          throw new IllegalArgumentException("--p2p takes write, read or send, not '" + value
              + "'");
        }
      }
      case "--first-fpdu-delay" -> firstFpduDelay =
          Duration.ofMillis(intValue(name, value, 0, 10_000));
      case "--timeout" -> timeout = Duration.ofSeconds(intValue(name, value, 1, 3600));
      case "--connections" -> connections = intValue(name, value, 1, 100_000);
      case "--stream-after-rtr" -> streamAfterRtr =
          intValue(name, value, 1, PingStream.MAX_MESSAGES);
      case "--probe-rfc7306" -> {
        if (!"fetch-add".equals(value) && !"imm".equals(value)) {
          throw new IllegalArgumentException("--probe-rfc7306 takes fetch-add or imm, not '"
              + value + "'");
        }
        probe7306 = value;
      }
      default -> throw new IllegalArgumentException("unknown option " + name);
    }
  }

  private static boolean noValue(String name, String value, boolean result) {
    if (value != null) {
      throw new IllegalArgumentException(name + " takes no value");
    }
    return result;
  }

  private static int intValue(String what, String v, int min, int max) {
    if (v == null) {
      throw new IllegalArgumentException(what + " needs a value");
    }
    long n;
    try {
      n = Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " takes a number, not '" + v + "'");
    }
    if (n < min || n > max) {
      throw new IllegalArgumentException("invalid " + what + " " + v + " (valid range is " + min
          + " to " + max + ")");
    }
    return (int) n;
  }

  private void check() {
    if (server == client) {
      throw new IllegalArgumentException("give exactly one of -s (server) and -c (client)");
    }
    if (client && address == null) {
      throw new IllegalArgumentException("the client needs -a addr");
    }
    if (connections > 1 && !client) {
      throw new IllegalArgumentException("--connections is a client option");
    }
    if (probe7306 != null && !client) {
      throw new IllegalArgumentException("--probe-rfc7306 is a client option");
    }
    if (streamAfterRtr > 0) {
      if (client && p2p == null) {
        throw new IllegalArgumentException("--stream-after-rtr is for a peer-to-peer connection:"
            + " add --p2p[=write|read|send]");
      }
      if (probe7306 != null) {
        throw new IllegalArgumentException("--stream-after-rtr and --probe-rfc7306 exclude each"
            + " other");
      }
      if ((long) streamAfterRtr * size > 64L << 20) {
        throw new IllegalArgumentException("--stream-after-rtr=" + streamAfterRtr + " with -S "
            + size + " needs more than 64 MiB per direction");
      }
    }
    if (persistent && client) {
      throw new IllegalArgumentException("-P is a server option");
    }
    if (address == null) {
      address = "0.0.0.0";
    }
  }

  /**
   * Whether this is the server side.
   *
   * @return true for -s
   */
  public boolean isServer() {
    return server;
  }

  /**
   * The ping data size.
   *
   * @return -S
   */
  public int size() {
    return size;
  }

  /**
   * The ping count (0 = forever).
   *
   * @return -C
   */
  public int count() {
    return count;
  }

  /**
   * The RTR types asked for in peer-to-peer mode.
   *
   * @return null without --p2p
   */
  public Set<RtrType> p2p() {
    return p2p;
  }

  /**
   * Whether MPA CRC is asked for.
   *
   * @return --crc (default) or --no-crc
   */
  public boolean crc() {
    return crc;
  }

  /**
   * The number of Sends streamed right after the connection is established.
   *
   * @return --stream-after-rtr, 0 without it
   */
  public int streamAfterRtr() {
    return streamAfterRtr;
  }

  /**
   * The client's quiet period after the MPA Reply.
   *
   * @return --first-fpdu-delay
   */
  public Duration firstFpduDelay() {
    return firstFpduDelay;
  }
}
