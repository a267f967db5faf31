package io.iwarp4j.it.model;

/**
 * Octets {@code [offset, offset + length)} of one modelled region, handed to exactly one work
 * request for its whole life: nobody else writes them, so what they must hold is known.
 */
record Slice(RegionModel region, int offset, int length) {

  /** The Tagged Offset of the first octet, for a peer's RDMA access. */
  long to() {
    return region.mr().address() + offset;
  }

  @Override
  public String toString() {
    return region.name() + "[" + offset + "+" + length + "]";
  }
}
