/**
 * The iwarp4j verbs API: devices, protection domains, memory regions, queue pairs, completion
 * queues and the connection manager, all in package {@link io.iwarp4j.verbs}, the only package
 * this module exports. Every type an application names is in it; the one type from elsewhere
 * in its signatures is Netty's {@code ByteBuf} ({@code MemoryRegion.buffer()}), so this module
 * reads {@code io.netty.buffer} transitively.
 *
 * <p>The engine ({@code io.iwarp4j.verbs.engine}, {@code io.iwarp4j.verbs.internal}) is not
 * exported, and the protocol layers below it ({@code io.iwarp4j.rdmap}, {@code io.iwarp4j.ddp},
 * {@code io.iwarp4j.mpa}) are not readable by an application that requires only this module:
 * they are required here without {@code transitive}, and export their packages to the layers
 * above them only.
 */
module io.iwarp4j.verbs {
  requires io.iwarp4j.mpa;
  requires io.iwarp4j.ddp;
  requires io.iwarp4j.wire;
  requires io.iwarp4j.rdmap;
  requires transitive io.netty.buffer;
  requires io.netty.common;
  requires io.netty.transport;
  // PcapWriteHandler, for DeviceConfig.pcapDirectory.
  requires io.netty.handler;
  // The optional counters MBeans (DeviceConfig.jmx): the platform MBeanServer.
  requires java.management;
  requires org.slf4j;

  exports io.iwarp4j.verbs;
}
