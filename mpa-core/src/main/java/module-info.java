/**
 * MPA framing for TCP (RFC 5044, RFC 6581) on Netty. Exported only to the layers built on it;
 * applications use the verbs API, which has its own MPA settings, transport and RTR types.
 */
@SuppressWarnings("module") // the qualified export names modules that are compiled later
module io.iwarp4j.mpa {
  requires transitive io.iwarp4j.wire;
  requires transitive io.netty.buffer;
  requires transitive io.netty.common;
  requires transitive io.netty.transport;
  // Transport.EPOLL; the native library itself is the runtime-only module
  // io.netty.transport.epoll.linux.x86_64, which nothing requires (add it to the module graph
  // with --add-modules, else Netty reports epoll unavailable and Transport.AUTO picks NIO).
  requires io.netty.transport.classes.epoll;
  // Transport.applyTcpLiveness on NIO: the keepalive timing options.
  requires jdk.net;
  requires org.slf4j;

  exports io.iwarp4j.mpa to io.iwarp4j.ddp, io.iwarp4j.rdmap, io.iwarp4j.verbs;
}
