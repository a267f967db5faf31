package io.iwarp4j.verbs;

import io.iwarp4j.rdmap.RdmapCounters;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link CountersMXBean} of a device or queue pair, and its registration on the platform
 * MBeanServer. Each attribute read fills a fresh {@link CountersSnapshot} from the source.
 */
final class CountersMBean implements CountersMXBean {
  private static final Logger log = LoggerFactory.getLogger(CountersMBean.class);
  static final String DOMAIN = "io.iwarp4j";

  private final Consumer<CountersSnapshot> source;

  private CountersMBean(Consumer<CountersSnapshot> source) {
    this.source = source;
  }

  /** The device MBean's name. */
  static ObjectName deviceName(String device) throws JMException {
    return new ObjectName(DOMAIN + ":type=Device,name=" + ObjectName.quote(device));
  }

  /** A queue pair MBean's name. */
  static ObjectName queuePairName(String device, int qp) throws JMException {
    return new ObjectName(DOMAIN + ":type=QueuePair,device=" + ObjectName.quote(device)
        + ",qp=" + qp);
  }

  /**
   * Registers an MBean reading {@code source} under {@code name}; a failure is logged, never
   * thrown (monitoring must not break the device).
   *
   * @return the name registered, or null
   */
  static ObjectName register(ObjectName name, Consumer<CountersSnapshot> source) {
    try {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      server.registerMBean(new StandardMBean(new CountersMBean(source), CountersMXBean.class,
          true), name);
      return name;
    } catch (JMException | RuntimeException e) {
      log.warn("cannot register the counters MBean {}: {}", name, e.toString());
      return null;
    }
  }

  /** Unregisters {@code name} (null: nothing), logging a failure. */
  static void unregister(ObjectName name) {
    if (name == null) {
      return;
    }
    try {
      ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
    } catch (JMException | RuntimeException e) {
      log.debug("cannot unregister the counters MBean {}: {}", name, e.toString());
    }
  }

  private CountersSnapshot snapshot() {
    CountersSnapshot s = new CountersSnapshot();
    source.accept(s);
    return s;
  }

  private Map<String, Long> perType(ToLongFunction<RdmapMessageType> value) {
    Map<String, Long> m = new LinkedHashMap<>();
    for (RdmapMessageType t : RdmapMessageType.values()) {
      m.put(t.name(), value.applyAsLong(t));
    }
    return m;
  }

  private Map<String, Long> terminates(boolean sent) {
    CountersSnapshot s = snapshot();
    Map<String, Long> m = new LinkedHashMap<>();
    for (int i = 0; i < RdmapCounters.TERMINATE_SLOTS; i++) {
      long n = s.terminateSlot(sent, i);
      if (n != 0) {
        m.put(CountersSnapshot.slotName(i), n);
      }
    }
    return m;
  }

  @Override
  public Map<String, Long> getMessagesSent() {
    return perType(snapshot()::messagesSent);
  }

  @Override
  public Map<String, Long> getOctetsSent() {
    return perType(snapshot()::octetsSent);
  }

  @Override
  public Map<String, Long> getMessagesReceived() {
    return perType(snapshot()::messagesReceived);
  }

  @Override
  public Map<String, Long> getOctetsReceived() {
    return perType(snapshot()::octetsReceived);
  }

  @Override
  public long getOctetsSentTotal() {
    return snapshot().octetsSent();
  }

  @Override
  public long getOctetsReceivedTotal() {
    return snapshot().octetsReceived();
  }

  @Override
  public Map<String, Long> getTerminatesSent() {
    return terminates(true);
  }

  @Override
  public Map<String, Long> getTerminatesReceived() {
    return terminates(false);
  }

  @Override
  public long getFlushedWorkRequests() {
    return snapshot().flushedWorkRequests();
  }

  @Override
  public long getErrorCompletions() {
    return snapshot().errorCompletions();
  }

  @Override
  public long getErrorEvents() {
    return snapshot().errorEvents();
  }
}
