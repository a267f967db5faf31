/**
 * The iwarp4j verbs API: devices, protection domains, memory regions, queue pairs, completion
 * queues and the connection manager, in package {@link io.iwarp4j.verbs}.
 *
 * <p>Reads {@code io.iwarp4j.mpa} (device and MPA settings) and {@code io.iwarp4j.ddp}
 * (memory access flags) transitively, because the API's signatures use types from them, and
 * Netty's buffers ({@code MemoryRegion.buffer()}). {@code io.iwarp4j.verbs.internal} is not
 * exported.
 */
module io.iwarp4j.verbs {
  requires io.iwarp4j.wire;
  requires transitive io.iwarp4j.mpa;
  requires transitive io.iwarp4j.ddp;
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
