package io.iwarp4j.it.interop;

import io.iwarp4j.testkit.FaultProxy;
import io.iwarp4j.testkit.FaultProxy.Direction;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The siw lab's FPDU cut (host/matrix.sh, scenario {@code headercut}): a {@link FaultProxy}
 * from 127.0.0.1:LISTEN to 127.0.0.1:TARGET that forwards exactly CUT octets toward the target,
 * as a write of their own, holds the rest for PAUSE milliseconds, then forwards everything as it
 * comes, for one connection:
 *
 * <pre>
 * java -cp ... io.iwarp4j.it.interop.FpduCutProxy LISTEN TARGET CUT [PAUSE-MS [TIMEOUT-S]]
 * </pre>
 *
 * With CUT = the MPA Request's length plus 18, our first FPDU (a Send: 20 octets of MPA length
 * and DDP/RDMAP header) reaches siw with its header cut after octet 18: Linux 6.1's
 * {@code siw_get_hdr()} then takes two payload octets as header (bug 4). With CUT = the
 * Request's length plus 36 + 3 (the advertisement Send's 36 octets before its CRC, pad 0), its
 * CRC arrives cut 3+1: siw_get_trailer() copies the second part over the first (bug 1).
 * (docs/interop.md, "Bugs 1 and 4 reproduced in the lab"; {@link FpduCutCheck} judges.) Exits
 * 0 once the connection ended (both directions closed), 1 when none came or it did not end
 * within TIMEOUT seconds (default 120), 2 on a usage error. Prints what it did, for the row's
 * log.
 */
public final class FpduCutProxy {
  private FpduCutProxy() {
  }

  public static void main(String[] args) {
    if (args.length < 3) {
      System.err.println("usage: FpduCutProxy LISTEN TARGET CUT [PAUSE-MS [TIMEOUT-S]]");
      System.exit(2);
    }
    int listen = Integer.parseInt(args[0]);
    int target = Integer.parseInt(args[1]);
    long cut = Long.parseLong(args[2]);
    long pauseMs = args.length > 3 ? Long.parseLong(args[3]) : 50;
    Duration timeout = Duration.ofSeconds(args.length > 4 ? Long.parseLong(args[4]) : 120);
    InetAddress lo = InetAddress.getLoopbackAddress();
    try (FaultProxy proxy = FaultProxy.to(new InetSocketAddress(lo, target), listen)) {
      proxy.pauseAfter(Direction.TO_TARGET, cut, Duration.ofMillis(pauseMs));
      System.out.println("FPDU-cut proxy " + proxy.address() + " -> " + lo.getHostAddress()
          + ":" + target + ": the first " + cut + " octets toward the target as a write of their"
          + " own, then a pause of " + pauseMs + " ms, for one connection");
      System.out.flush();
      try {
        proxy.awaitConnections(1, timeout);
        proxy.awaitEnded(1, timeout);
      } catch (AssertionError e) {
        System.out.println("FPDU-cut proxy: " + e.getMessage() + "; forwarded toward the"
            + " target " + proxy.forwarded(Direction.TO_TARGET) + ", back "
            + proxy.forwarded(Direction.FROM_TARGET));
        System.exit(1);
      }
      System.out.println("FPDU-cut proxy: the connection ended; forwarded toward the target "
          + proxy.forwarded(Direction.TO_TARGET) + " octets, back "
          + proxy.forwarded(Direction.FROM_TARGET));
    }
  }
}
