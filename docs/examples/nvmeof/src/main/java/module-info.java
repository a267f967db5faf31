/**
 * The NVMe over Fabrics example (see README.md): the NVMe/RDMA wire formats, a target over an
 * in-memory namespace, a host (initiator), and the command line.
 */
module io.iwarp4j.examples.nvmeof {
  requires transitive io.iwarp4j.verbs;

  exports io.iwarp4j.examples.nvmeof.wire;
  exports io.iwarp4j.examples.nvmeof.server;
  exports io.iwarp4j.examples.nvmeof.host;
  exports io.iwarp4j.examples.nvmeof.cli;
}
