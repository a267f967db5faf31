package io.iwarp4j.example.kvstore;

import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * {@code client <host> <port> <command>...} with the commands {@code put <key> <value>},
 * {@code get <key>} and {@code incr}, run in order over one connection.
 */
public final class KvClientMain {
  private static final String USAGE =
      "usage: client <host> <port> (put <key> <value> | get <key> | incr)...";

  private KvClientMain() {
  }

  /**
   * Runs the commands and prints one line for each; exits 1 naming the failure, 2 on bad usage.
   *
   * @param args host, port, then the commands
   */
  public static void main(String[] args) {
    if (args.length < 3) {
      usage("no command given");
    }
    InetSocketAddress server = new InetSocketAddress(args[0], port(args[1]));
    try (KvClient client = KvClient.connect(server)) {
      for (int i = 2; i < args.length; i++) {
        switch (args[i]) {
          case "put" -> {
            need(args, i, 2);
            int slot = client.put(args[i + 1], args[i + 2]);
            System.out.println("put " + args[i + 1] + " = " + args[i + 2] + " (slot " + slot + ")");
            i += 2;
          }
          case "get" -> {
            need(args, i, 1);
            System.out.println("get " + args[i + 1] + " = "
                + client.get(args[i + 1]).orElse("(not found)"));
            i += 1;
          }
          case "incr" -> System.out.println("incr = " + client.increment());
          default -> usage("unknown command '" + args[i] + "'");
        }
      }
    } catch (KvStoreException | IllegalArgumentException e) {
      System.err.println("kvstore: " + e.getMessage());
      System.exit(1);
    }
  }

  private static int port(String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      usage("port '" + text + "' is not a number");
      return -1;
    }
  }

  private static void need(String[] args, int command, int operands) {
    if (command + operands >= args.length) {
      usage(args[command] + " needs " + operands + " operand(s), got "
          + Arrays.toString(Arrays.copyOfRange(args, command + 1, args.length)));
    }
  }

  private static void usage(String problem) {
    System.err.println("kvstore: " + problem);
    System.err.println(USAGE);
    System.exit(2);
  }
}
