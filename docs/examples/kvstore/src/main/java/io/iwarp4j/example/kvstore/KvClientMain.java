package io.iwarp4j.example.kvstore;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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
    List<String[]> commands = parse(Arrays.copyOfRange(args, 2, args.length));
    try (KvClient client = KvClient.connect(server)) {
      for (String[] c : commands) {
        switch (c[0]) {
          case "put" -> System.out.println("put " + c[1] + " = " + c[2] + " (slot "
              + client.put(c[1], c[2]) + ")");
          case "get" -> System.out.println("get " + c[1] + " = "
              + client.get(c[1]).orElse("(not found)"));
          default -> System.out.println("incr = " + client.increment());
        }
      }
    } catch (KvStoreException | IllegalArgumentException e) {
      System.err.println("kvstore: " + e.getMessage());
      System.exit(1);
    }
  }

  // Checked before connecting, so that a typo costs no connection.
  private static List<String[]> parse(String[] words) {
    List<String[]> commands = new ArrayList<>();
    for (int i = 0; i < words.length; ) {
      int operands = switch (words[i]) {
        case "put" -> 2;
        case "get" -> 1;
        case "incr" -> 0;
        default -> {
          usage("unknown command '" + words[i] + "'");
          yield 0;
        }
      };
      if (i + operands >= words.length) {
        usage(words[i] + " needs " + operands + " operand(s)");
      }
      commands.add(Arrays.copyOfRange(words, i, i + 1 + operands));
      i += 1 + operands;
    }
    return commands;
  }

  private static int port(String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      usage("port '" + text + "' is not a number");
      return -1;
    }
  }

  private static void usage(String problem) {
    System.err.println("kvstore: " + problem);
    System.err.println(USAGE);
    System.exit(2);
  }
}
