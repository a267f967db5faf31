package io.iwarp4j.ddp;

/**
 * The tagged messages in progress on one stream at the Data Sink, keyed by STag, so the message
 * length can be handed up on Delivery (RFC 5040 Figure 4). A tagged segment does not say where
 * its message starts; a message is all the segments with its STag from the first one after the
 * previous L=1 segment of that STag up to its own L=1 segment (Linux siw tracks the message in
 * progress the same way). Keying by STag lets a Write and a Read Response interleave, as a
 * robust receiver should allow (ddp.md §5).
 *
 * <p>A fixed table of {@code capacity} slots: nothing is allocated per segment. Event-loop
 * confined.
 */
final class TaggedMessages {
  private final int[] stags;
  private final long[] startTos;
  private final long[] lengths;
  private final boolean[] used;
  private int inUse;

  TaggedMessages(int capacity) {
    stags = new int[capacity];
    startTos = new long[capacity];
    lengths = new long[capacity];
    used = new boolean[capacity];
  }

  /** The slot of the message in progress for {@code stag}, or -1. */
  int find(int stag) {
    if (inUse == 0) {
      return -1;
    }
    for (int i = 0; i < used.length; i++) {
      if (used[i] && stags[i] == stag) {
        return i;
      }
    }
    return -1;
  }

  /** Starts a message for {@code stag} at {@code to}; returns its slot, or -1 when all are used. */
  int open(int stag, long to) {
    for (int i = 0; i < used.length; i++) {
      if (!used[i]) {
        used[i] = true;
        stags[i] = stag;
        startTos[i] = to;
        lengths[i] = 0;
        inUse++;
        return i;
      }
    }
    return -1;
  }

  /** Counts {@code octets} more payload for the message in {@code slot}. */
  void add(int slot, int octets) {
    lengths[slot] += octets;
  }

  /** Payload octets of the message in {@code slot} so far. */
  long length(int slot) {
    return lengths[slot];
  }

  /** The TO of the first segment of the message in {@code slot}. */
  long startTo(int slot) {
    return startTos[slot];
  }

  /** Ends the message in {@code slot}. */
  void close(int slot) {
    used[slot] = false;
    inUse--;
  }

  /** Messages in progress. */
  int inProgress() {
    return inUse;
  }
}
