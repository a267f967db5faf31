/**
 * MPA framing for TCP (RFC 5044, RFC 6581) on Netty.
 *
 * <p>Exports {@code io.iwarp4j.mpa} because the verbs API's configuration types come from it
 * ({@code MpaSettings}, {@code Transport}, {@code RtrType}, {@code MpaPeerParameters},
 * {@code MpaConnectionInfo}); applications use those and the verbs API, not the framers.
 */
module io.iwarp4j.mpa {
  requires transitive io.iwarp4j.wire;
  requires transitive io.netty.buffer;
  requires transitive io.netty.common;
  requires transitive io.netty.transport;
  // Transport.EPOLL; the native library itself is the runtime-only module
  // io.netty.transport.epoll.linux.x86_64, which nothing requires (add it to the module graph
  // with --add-modules, else Netty reports epoll unavailable and Transport.AUTO picks NIO).
  requires io.netty.transport.classes.epoll;
  requires org.slf4j;

  exports io.iwarp4j.mpa;
}
