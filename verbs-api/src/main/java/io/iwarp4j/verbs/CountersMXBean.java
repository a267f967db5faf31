package io.iwarp4j.verbs;

import java.util.Map;

/**
 * The JMX view of a device's or a queue pair's counters (see {@link CountersSnapshot} for what
 * each counts), registered on the platform MBeanServer when {@link DeviceConfig#jmx()} is on:
 * {@code io.iwarp4j:type=Device,name=<device>} for the device (live and destroyed queue pairs),
 * {@code io.iwarp4j:type=QueuePair,device=<device>,qp=<number>} for each queue pair until it is
 * closed. Open them with jconsole or VisualVM (MBeans tab), or read them with any JMX client.
 * Every read takes a fresh snapshot.
 */
public interface CountersMXBean {
  /**
   * Messages sent per message type, keyed by {@link RdmapMessageType} name.
   *
   * @return a map of every type to its count
   */
  Map<String, Long> getMessagesSent();

  /**
   * Octets sent per message type, keyed by {@link RdmapMessageType} name.
   *
   * @return a map of every type to its octets
   */
  Map<String, Long> getOctetsSent();

  /**
   * Messages received per message type, keyed by {@link RdmapMessageType} name.
   *
   * @return a map of every type to its count
   */
  Map<String, Long> getMessagesReceived();

  /**
   * Octets received per message type, keyed by {@link RdmapMessageType} name.
   *
   * @return a map of every type to its octets
   */
  Map<String, Long> getOctetsReceived();

  /**
   * Octets sent, every message type together.
   *
   * @return the total
   */
  long getOctetsSentTotal();

  /**
   * Octets received, every message type together.
   *
   * @return the total
   */
  long getOctetsReceivedTotal();

  /**
   * Terminates sent, keyed by {@code layer/type/0xcode} (or {@code other}); only triples seen.
   *
   * @return a map of each triple sent to its count
   */
  Map<String, Long> getTerminatesSent();

  /**
   * Terminates received, keyed by {@code layer/type/0xcode} (or {@code other}); only triples
   * seen.
   *
   * @return a map of each triple received to its count
   */
  Map<String, Long> getTerminatesReceived();

  /**
   * Work requests completed with a flush status.
   *
   * @return the count
   */
  long getFlushedWorkRequests();

  /**
   * Work requests completed with an error status other than a flush.
   *
   * @return the count
   */
  long getErrorCompletions();

  /**
   * ERROR connection events.
   *
   * @return the count
   */
  long getErrorEvents();
}
