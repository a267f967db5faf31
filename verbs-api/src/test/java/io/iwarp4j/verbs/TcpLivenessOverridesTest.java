package io.iwarp4j.verbs;

import static io.iwarp4j.verbs.ConnectedSockets.close;
import static io.iwarp4j.verbs.ConnectedSockets.config;
import static io.iwarp4j.verbs.ConnectedSockets.epoll;
import static io.iwarp4j.verbs.ConnectedSockets.epollAvailable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * TCP keepalive and TCP_USER_TIMEOUT set per listener, per accept and per connect take
 * precedence over the device's, field by field: read back from each end's channel (the kernel's
 * values). The device sets keepalive 30/5/4 s and a user timeout of 1.5 s on both devices.
 */
class TcpLivenessOverridesTest {
  @Test
  void connectListenerAndAcceptOverridesReachTheirSockets() throws Exception {
    Assumptions.assumeTrue(epollAvailable(), "epoll unavailable");
    Channel[] ends = connect(
        ConnectParams.builder().tcpUserTimeout(Duration.ofMillis(4500))
            .tcpKeepAlive(Duration.ofSeconds(60), Duration.ofSeconds(10), 3).build(),
        ListenParams.builder().tcpUserTimeout(Duration.ofMillis(2500)).build(),
        AcceptParams.builder().tcpKeepAlive(false).build());
    Channel client = ends[0];
    Channel server = ends[1];
    try {
      assertEquals(4500, client.config().getOption(epoll("TCP_USER_TIMEOUT")));
      assertTrue(client.config().getOption(ChannelOption.SO_KEEPALIVE));
      assertEquals(60, client.config().getOption(epoll("TCP_KEEPIDLE")));
      assertEquals(10, client.config().getOption(epoll("TCP_KEEPINTVL")));
      assertEquals(3, client.config().getOption(epoll("TCP_KEEPCNT")));
      // The listener's user timeout, the accept's keepalive off.
      assertEquals(2500, server.config().getOption(epoll("TCP_USER_TIMEOUT")));
      assertFalse(server.config().getOption(ChannelOption.SO_KEEPALIVE));
    } finally {
      close(ends);
    }
  }

  @Test
  void anAcceptOverridesItsListenersAndZeroRestoresTheKernelsDefault() throws Exception {
    Assumptions.assumeTrue(epollAvailable(), "epoll unavailable");
    Channel[] ends = connect(ConnectParams.builder().tcpUserTimeout(Duration.ZERO)
            .tcpKeepAlive(false).build(),
        ListenParams.builder().tcpUserTimeout(Duration.ofMillis(2500)).build(),
        AcceptParams.builder().tcpUserTimeout(Duration.ofMillis(3500))
            .tcpKeepAlive(Duration.ofSeconds(20), Duration.ofSeconds(2), 7).build());
    try {
      assertEquals(0, ends[0].config().getOption(epoll("TCP_USER_TIMEOUT")));
      assertFalse(ends[0].config().getOption(ChannelOption.SO_KEEPALIVE));
      assertEquals(3500, ends[1].config().getOption(epoll("TCP_USER_TIMEOUT")));
      assertTrue(ends[1].config().getOption(ChannelOption.SO_KEEPALIVE));
      assertEquals(20, ends[1].config().getOption(epoll("TCP_KEEPIDLE")));
      assertEquals(7, ends[1].config().getOption(epoll("TCP_KEEPCNT")));
    } finally {
      close(ends);
    }
  }

  @Test
  void withoutOverridesBothEndsKeepTheDevicesSettings() throws Exception {
    Assumptions.assumeTrue(epollAvailable(), "epoll unavailable");
    Channel[] ends = connect(ConnectParams.defaults(), ListenParams.defaults(),
        AcceptParams.defaults());
    try {
      for (Channel ch : ends) {
        assertEquals(1500, ch.config().getOption(epoll("TCP_USER_TIMEOUT")), ch.toString());
        assertTrue(ch.config().getOption(ChannelOption.SO_KEEPALIVE), ch.toString());
        assertEquals(30, ch.config().getOption(epoll("TCP_KEEPIDLE")), ch.toString());
      }
    } finally {
      close(ends);
    }
  }

  /** NIO: the keepalive overrides apply (jdk.net options); TCP_USER_TIMEOUT has no NIO option. */
  @Test
  void onNioTheKeepAliveOverridesApply() throws Exception {
    Channel[] ends = connect(Transport.NIO,
        ConnectParams.builder().tcpKeepAlive(Duration.ofSeconds(60), Duration.ofSeconds(10), 3)
            .tcpUserTimeout(Duration.ofSeconds(2)).build(),
        ListenParams.builder().tcpKeepAlive(false).build(), AcceptParams.defaults());
    try {
      ChannelOption<Integer> idle = io.netty.channel.socket.nio.NioChannelOption.of(
          jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE);
      assertTrue(ends[0].config().getOption(ChannelOption.SO_KEEPALIVE));
      assertEquals(60, ends[0].config().getOption(idle));
      assertFalse(ends[1].config().getOption(ChannelOption.SO_KEEPALIVE));
    } finally {
      close(ends);
    }
  }

  @Test
  void overridesOutOfRangeAreRefusedByName() {
    assertRefused("tcpUserTimeout", b -> ConnectParams.builder().tcpUserTimeout(b));
    assertRefused("tcpUserTimeout", b -> ListenParams.builder().tcpUserTimeout(b));
    assertRefused("tcpUserTimeout", b -> AcceptParams.builder().tcpUserTimeout(b));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ConnectParams.builder().tcpKeepAlive(Duration.ofMillis(1500), Duration.ofSeconds(1),
            3));
    assertTrue(e.getMessage().contains("tcpKeepIdle") && e.getMessage().contains("PT1.5S"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> AcceptParams.builder().tcpKeepAlive(Duration.ofSeconds(1), Duration.ofSeconds(0),
            3));
    assertTrue(e.getMessage().contains("tcpKeepInterval"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> ListenParams.builder().tcpKeepAlive(Duration.ofSeconds(1), Duration.ofSeconds(1),
            128));
    assertTrue(e.getMessage().contains("tcpKeepCount") && e.getMessage().contains("128"),
        e.getMessage());
  }

  private static void assertRefused(String name, Consumer<Duration> setter) {
    for (Duration bad : new Duration[] {Duration.ofMillis(-1),
        Duration.ofMillis(Integer.MAX_VALUE + 1L), Duration.ofNanos(500)}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> setter.accept(bad), bad.toString());
      assertTrue(e.getMessage().contains(name) && e.getMessage().contains(bad.toString()),
          e.getMessage());
    }
  }

  /** The client's and the accepted channel of one connection made with these overrides. */
  private static Channel[] connect(ConnectParams connect, ListenParams listen,
      AcceptParams accept) throws Exception {
    return connect(Transport.EPOLL, connect, listen, accept);
  }

  private static Channel[] connect(Transport transport, ConnectParams connect,
      ListenParams listen, AcceptParams accept) throws Exception {
    // The device's user timeout only where the transport has it (NIO would warn at open).
    DeviceConfig config = transport == Transport.EPOLL ? config(transport)
        : DeviceConfig.builder().transport(transport).eventLoopThreads(1)
            .tcpKeepAlive(Duration.ofSeconds(30), Duration.ofSeconds(5), 4).build();
    return ConnectedSockets.connect(config, connect, listen, accept);
  }
}
