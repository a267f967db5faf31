package io.iwarp4j.verbs;

import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Admission of accepted connections that have not yet sent their MPA Request (half-open, as far
 * as MPA is concerned): at most {@link DeviceConfig#maxStartupConnectionsPerSource()} per source
 * address, and, when the device is at {@link DeviceConfig#maxConnections()}, the oldest of them
 * makes room for a new one. So one address that opens connections and sends nothing holds a
 * bounded share of the device, and a healthy client from elsewhere is still served. A connection
 * leaves the startup set when its MPA Request arrives or it closes.
 *
 * <p>Accept path only (listener event loops), never the data path: one short lock.
 */
final class StartupAdmission {
  private final int perSource;
  private final DeviceCounters counters;
  private final Object lock = new Object();
  /** Connections in startup, oldest first, with their source address. */
  private final LinkedHashMap<Channel, InetAddress> pending = new LinkedHashMap<>();
  private final Map<InetAddress, Integer> perAddress = new HashMap<>();

  StartupAdmission(int perSource, DeviceCounters counters) {
    this.perSource = perSource;
    this.counters = counters;
  }

  /**
   * Enters {@code ch} into the startup set unless its source already has
   * {@code maxStartupConnectionsPerSource} there.
   *
   * @return false when refused (counted)
   */
  boolean enter(Channel ch) {
    InetAddress source = sourceOf(ch.remoteAddress());
    synchronized (lock) {
      int n = perAddress.getOrDefault(source, 0);
      if (n >= perSource) {
        counters.startupRefusedPerSource.increment();
        return false;
      }
      perAddress.put(source, n + 1);
      pending.put(ch, source);
      return true;
    }
  }

  /**
   * Takes the oldest connection in startup other than {@code except} out of the set, for
   * eviction, or null when there is none.
   */
  Channel evictOldest(Channel except) {
    synchronized (lock) {
      Iterator<Map.Entry<Channel, InetAddress>> it = pending.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<Channel, InetAddress> e = it.next();
        if (e.getKey() != except) {
          it.remove();
          decrement(e.getValue());
          counters.startupEvicted.increment();
          return e.getKey();
        }
      }
      return null;
    }
  }

  /** {@code ch} left startup (its MPA Request arrived, or it closed); idempotent. */
  void leave(Channel ch) {
    synchronized (lock) {
      InetAddress source = pending.remove(ch);
      if (source != null) {
        decrement(source);
      }
    }
  }

  /** Connections in startup now (for tests and toString). */
  int size() {
    synchronized (lock) {
      return pending.size();
    }
  }

  private void decrement(InetAddress source) {
    int n = perAddress.get(source) - 1;
    if (n == 0) {
      perAddress.remove(source);
    } else {
      perAddress.put(source, n);
    }
  }

  private static InetAddress sourceOf(SocketAddress remote) {
    return remote instanceof InetSocketAddress a ? a.getAddress() : null;
  }
}
