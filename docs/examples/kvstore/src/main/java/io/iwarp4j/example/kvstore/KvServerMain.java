package io.iwarp4j.example.kvstore;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;

/** {@code server [port [slots]]}: runs a store until the process is stopped. */
public final class KvServerMain {
  private KvServerMain() {
  }

  /**
   * Starts the server and prints one line per PUT it hears of.
   *
   * @param args optional port (default 7471, 0 picks a free one) and slot count (default 1024)
   * @throws IOException when the port cannot be bound
   * @throws InterruptedException never in practice: the main thread waits for the shutdown
   */
  public static void main(String[] args) throws IOException, InterruptedException {
    if (args.length > 2) {
      System.err.println("usage: server [port [slots]]");
      System.exit(2);
    }
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 7471;
    int slots = args.length > 1 ? Integer.parseInt(args[1]) : 1024;
    KvServer server = KvServer.start(new InetSocketAddress(port), slots,
        change -> System.out.println("put slot " + change.slot() + ": " + change.key()));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      long counter = server.counter();
      server.close();
      System.out.println("stopped; counter = " + counter);
      stopped.countDown();
    }));
    System.out.println("kvstore listening on port " + server.address().getPort() + " with "
        + slots + " slots");
    stopped.await();
  }
}
