package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One connection between a client and a server device over 127.0.0.1, for tests that read the
 * TCP options back from both ends' channels (which ask the kernel). {@link #close(Channel[])}
 * closes the two devices.
 */
final class ConnectedSockets {
  private static final long T = 10;
  private static final Map<Channel, RdmaDevice> DEVICES = new ConcurrentHashMap<>();

  private ConnectedSockets() {
  }

  static boolean epollAvailable() {
    return Transport.AUTO.mpa().resolve() == io.iwarp4j.mpa.Transport.EPOLL;
  }

  /**
   * Netty's {@code EpollChannelOption} constant of that name, by its pool name (this module
   * reaches the epoll classes only through mpa-core).
   */
  static ChannelOption<Integer> epoll(String name) {
    return ChannelOption.valueOf("io.netty.channel.epoll.EpollChannelOption#" + name);
  }

  /** A device with keepalive 30/5/4 s and a user timeout of 1.5 s. */
  static DeviceConfig config(Transport transport) {
    return DeviceConfig.builder().transport(transport).eventLoopThreads(1)
        .tcpKeepAlive(Duration.ofSeconds(30), Duration.ofSeconds(5), 4)
        .tcpUserTimeout(Duration.ofMillis(1500)).build();
  }

  /** The client's and the accepted channel of one connection between two devices. */
  static Channel[] connect(DeviceConfig config) throws Exception {
    return connect(config, ConnectParams.defaults(), ListenParams.defaults(),
        AcceptParams.defaults());
  }

  /** As {@link #connect(DeviceConfig)}, with these connect, listen and accept parameters. */
  static Channel[] connect(DeviceConfig config, ConnectParams connect, ListenParams listen,
      AcceptParams accept) throws Exception {
    RdmaDevice server = RdmaDevice.open(config);
    RdmaDevice client = RdmaDevice.open(config);
    try {
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      RdmaListener l = server.listen(new InetSocketAddress("127.0.0.1", 0), requests::add,
          listen);
      QueuePair sqp = qp(server);
      QueuePair cqp = qp(client);
      var connected = client.connect(cqp, l.localAddress(), connect);
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "no request");
      // The accept's options are set on the event loop before its MPA Reply is written, so by
      // the time the connect completes (on the Reply) they are in place.
      request.accept(sqp, accept);
      RdmaConnection c = connected.get(T, TimeUnit.SECONDS);
      DEVICES.put(c.channel(), client);
      DEVICES.put(request.channel(), server);
      return new Channel[] {c.channel(), request.channel()};
    } catch (Exception | Error e) {
      client.close();
      server.close();
      throw e;
    }
  }

  static void close(Channel[] ends) {
    for (Channel ch : ends) {
      RdmaDevice d = DEVICES.remove(ch);
      if (d != null) {
        d.close();
      }
    }
  }

  private static QueuePair qp(RdmaDevice d) {
    CompletionQueue cq = d.createCompletionQueue(8);
    return d.createQueuePair(d.allocateProtectionDomain(), QueuePairConfig.builder(cq, cq).build());
  }
}
