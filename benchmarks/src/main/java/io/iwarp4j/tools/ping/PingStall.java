package io.iwarp4j.tools.ping;

import io.iwarp4j.verbs.RtrType;

/**
 * What did not arrive when the client gave up waiting for a "go ahead": rping's server answers
 * each advertisement with an RDMA Read (of the start buffer) or an RDMA Write (into the sink
 * buffer), then a Send. The client counts what its queue pair received, so it can say which of
 * them never came, and, when nothing came at all after the MPA Reply, what that means for each
 * RTR type (a Read RTR expects a zero-length Read Response; a Write or Send RTR expects nothing,
 * so silence after it cannot tell whether the server took it: siw's accept race, docs/interop.md).
 */
final class PingStall {
  /** The two waits of a ping. */
  enum Step {
    /** After advertising the start buffer: the server's RDMA Read of it, then its Send. */
    READ("the server's RDMA Read of our start buffer and its go-ahead Send"),
    /** After advertising the sink buffer: the server's RDMA Write into it, then its Send. */
    WRITE("the server's RDMA Write into our sink buffer and its go-ahead Send");

    final String awaited;

    Step(String awaited) {
      this.awaited = awaited;
    }
  }

  private PingStall() {
  }

  /** What the client waits for in {@code step} of ping {@code ping}. */
  static String awaited(Step step, int ping) {
    return step.awaited + " (ping " + ping + ")";
  }

  /**
   * What did not arrive.
   *
   * @param step the wait that timed out
   * @param rtr the RTR this end sent, or null (client-server)
   * @param rtrAnswered whether the Read RTR's zero-length Read Response arrived
   * @param receivedOnConnection RDMAP messages received on the connection so far, any type
   * @param rdmaThisStep the server's RDMA Read Requests (READ) or RDMA Writes (WRITE) received
   *     since the step began
   * @return one clause, e.g. "nothing arrived from the server after its MPA Reply, ..."
   */
  static String diagnose(Step step, RtrType rtr, boolean rtrAnswered, long receivedOnConnection,
      long rdmaThisStep) {
    if (step == Step.WRITE) {
      return rdmaThisStep > 0
          ? "the server's RDMA Write into our sink buffer arrived, its go-ahead Send did not"
          : "no RDMA Write into our sink buffer arrived, and no go-ahead Send";
    }
    if (rdmaThisStep > 0) {
      return "the server's RDMA Read Request for our start buffer arrived (and was answered),"
          + " its go-ahead Send did not";
    }
    if (receivedOnConnection > 0) {
      return "no RDMA Read Request for our start buffer arrived, and no go-ahead Send";
    }
    String none = ": no RDMA Read Request for our start buffer, no Send";
    if (rtr == null) {
      return "nothing arrived from the server after its MPA Reply" + none;
    }
    switch (rtr) {
      case READ:
        return rtrAnswered
            ? "the server answered our Read RTR (its zero-length Read Response arrived), then"
                + " sent nothing" + none
            : "nothing arrived from the server after its MPA Reply, not even the zero-length"
                + " Read Response to our Read RTR" + none;
      case WRITE:
      case SEND:
      default:
        return "nothing arrived from the server after its MPA Reply (our " + rtr
            + " RTR gets no answer, so whether the server took it is unknown)" + none;
    }
  }
}
