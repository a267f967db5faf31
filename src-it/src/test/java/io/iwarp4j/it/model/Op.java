package io.iwarp4j.it.model;

import io.iwarp4j.it.model.WorkRequestModel.Kind;

/**
 * One step the generator chose. {@code side} 0 is device A's end of the pair, 1 device B's.
 */
record Op(Type type, int pair, int side, Kind kind, int length, boolean signaled, int index,
    boolean flag) {

  enum Type {
    POST_SEND, POST_RECV, POLL, REGISTER, DEREGISTER, DEAD_STAG_ACCESS, SEND_WITHOUT_RECEIVE,
    MODIFY_TO_ERROR, DISCONNECT, CLOSE_QP, ABRUPT_CLOSE, REVIVE, QUIESCE
  }

  static Op of(Type type, int pair, int side) {
    return new Op(type, pair, side, null, 0, true, 0, false);
  }

  Op withIndex(int i) {
    return new Op(type, pair, side, kind, length, signaled, i, flag);
  }

  @Override
  public String toString() {
    return switch (type) {
      case POST_SEND -> type + " P" + pair + "." + "AB".charAt(side) + " " + kind + " " + length
          + (signaled ? "" : " unsignaled");
      case POST_RECV, MODIFY_TO_ERROR, DISCONNECT, CLOSE_QP, SEND_WITHOUT_RECEIVE ->
          type + " P" + pair + "." + "AB".charAt(side);
      case DEAD_STAG_ACCESS -> type + " P" + pair + "." + "AB".charAt(side) + " " + kind + " "
          + length;
      case POLL -> type + " cq#" + index;
      case REGISTER -> type + " device " + "AB".charAt(side) + " pd " + index;
      case DEREGISTER -> type + " region #" + index + (flag ? " closeChecked" : " close");
      case REVIVE -> type + " P" + pair + (flag ? " by reset" : " by new queue pairs");
      case ABRUPT_CLOSE -> type + " P" + pair + " (TCP RST to both ends)";
      case QUIESCE -> type.toString();
    };
  }
}
