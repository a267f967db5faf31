/**
 * Direct Data Placement (RFC 5041) into registered memory. Exported only to the layers built on
 * it: applications use the verbs API, whose module wraps what they need (access flags, region
 * options) in its own types.
 */
@SuppressWarnings("module") // the qualified exports name modules that are compiled later
module io.iwarp4j.ddp {
  requires io.iwarp4j.mpa;
  requires io.iwarp4j.wire;
  requires org.slf4j;

  exports io.iwarp4j.ddp to io.iwarp4j.rdmap, io.iwarp4j.verbs;
  exports io.iwarp4j.ddp.mem to io.iwarp4j.rdmap, io.iwarp4j.verbs;
}
