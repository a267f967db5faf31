/**
 * The iwarp4j testkit: a JUnit 5 extension that hands a test connected loopback queue pairs
 * ({@link io.iwarp4j.testkit.RdmaTest}), completion assertions, a scriptable misbehaving MPA
 * peer ({@link io.iwarp4j.testkit.ScriptedPeer}) and a fault-injecting TCP proxy ({@link
 * io.iwarp4j.testkit.FaultProxy}), all in package {@link io.iwarp4j.testkit}, the only package
 * it exports. Its signatures name only the verbs API, JUnit and the JDK; the wire codecs the
 * peer is built on stay internal.
 */
module io.iwarp4j.testkit {
  requires transitive io.iwarp4j.verbs;
  requires transitive org.junit.jupiter.api;
  requires io.iwarp4j.wire;
  requires io.netty.buffer;
  requires io.netty.common;

  exports io.iwarp4j.testkit;
}
