/**
 * The iWARP wire formats, each defined once: header flyweights with their RFC bit diagrams,
 * protocol constants, and the per-opcode table. Every layer above may use it directly (a
 * header's layout is a fact of the wire, not a service of the layer below); applications never
 * see it.
 */
@SuppressWarnings("module") // the qualified exports name modules that are compiled later
module io.iwarp4j.wire {
  requires transitive io.netty.buffer;

  exports io.iwarp4j.wire to io.iwarp4j.mpa, io.iwarp4j.ddp, io.iwarp4j.rdmap, io.iwarp4j.verbs,
      // The testkit's scripted peer writes byte-exact frames with these codecs.
      io.iwarp4j.testkit;
}
