/**
 * Direct Data Placement (RFC 5041) into registered memory.
 *
 * <p>Exports {@code io.iwarp4j.ddp.mem} because the verbs API takes its {@code AccessFlags}
 * and {@code RegionOptions}. The DDP stream itself ({@code io.iwarp4j.ddp}) is exported only to
 * the layers built on it.
 */
@SuppressWarnings("module") // the qualified exports name modules that are compiled later
module io.iwarp4j.ddp {
  requires io.iwarp4j.wire;
  requires transitive io.iwarp4j.mpa;
  requires org.slf4j;

  exports io.iwarp4j.ddp.mem;
  exports io.iwarp4j.ddp to io.iwarp4j.rdmap, io.iwarp4j.verbs;
}
