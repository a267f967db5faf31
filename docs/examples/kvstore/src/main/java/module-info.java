/**
 * The remote-memory key-value store example (see README.md): a server that exposes a
 * registered region, and a client that works on it with RDMA Read, RDMA Write with Immediate
 * Data and RFC 7306 Atomics.
 */
module io.iwarp4j.example.kvstore {
  requires io.iwarp4j.verbs;

  exports io.iwarp4j.example.kvstore;
}
