package io.iwarp4j.verbs;

import static io.iwarp4j.verbs.ConnectedSockets.close;
import static io.iwarp4j.verbs.ConnectedSockets.config;
import static io.iwarp4j.verbs.ConnectedSockets.connect;
import static io.iwarp4j.verbs.ConnectedSockets.epoll;
import static io.iwarp4j.verbs.ConnectedSockets.epollAvailable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.nio.NioChannelOption;
import java.time.Duration;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * DeviceConfig's TCP keepalive and TCP_USER_TIMEOUT reach the socket of both ends of a
 * connection: read back from each channel's configuration (which asks the kernel).
 */
class TcpLivenessOptionsTest {
  @Test
  void epollConnectionsCarryKeepAliveAndUserTimeout() throws Exception {
    Assumptions.assumeTrue(epollAvailable(), "epoll unavailable");
    Channel[] ends = connect(config(Transport.EPOLL));
    try {
      for (Channel ch : ends) {
        ChannelConfig c = ch.config();
        assertTrue(c.getOption(ChannelOption.SO_KEEPALIVE), ch + " SO_KEEPALIVE");
        assertEquals(30, c.getOption(epoll("TCP_KEEPIDLE")), ch + " TCP_KEEPIDLE");
        assertEquals(5, c.getOption(epoll("TCP_KEEPINTVL")), ch + " TCP_KEEPINTVL");
        assertEquals(4, c.getOption(epoll("TCP_KEEPCNT")), ch + " TCP_KEEPCNT");
        assertEquals(1500, c.getOption(epoll("TCP_USER_TIMEOUT")), ch + " TCP_USER_TIMEOUT");
      }
    } finally {
      close(ends);
    }
  }

  @Test
  void nioConnectionsCarryKeepAlive() throws Exception {
    Channel[] ends = connect(config(Transport.NIO));
    try {
      for (Channel ch : ends) {
        ChannelConfig c = ch.config();
        assertTrue(c.getOption(ChannelOption.SO_KEEPALIVE), ch + " SO_KEEPALIVE");
        assertEquals(30, c.getOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPIDLE)));
        assertEquals(5, c.getOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPINTERVAL)));
        assertEquals(4, c.getOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPCOUNT)));
      }
    } finally {
      close(ends);
    }
  }

  @Test
  void byDefaultNoKeepAliveAndTheKernelsUserTimeout() throws Exception {
    Assumptions.assumeTrue(epollAvailable(), "epoll unavailable");
    DeviceConfig defaults = DeviceConfig.builder().transport(Transport.EPOLL).eventLoopThreads(1)
        .build();
    assertFalse(defaults.tcpKeepAlive());
    Channel[] ends = connect(defaults);
    try {
      for (Channel ch : ends) {
        assertFalse(ch.config().getOption(ChannelOption.SO_KEEPALIVE), ch + " SO_KEEPALIVE");
        assertEquals(0, ch.config().getOption(epoll("TCP_USER_TIMEOUT")));
      }
    } finally {
      close(ends);
    }
  }

  @Test
  void settingsOutOfRangeAreRefusedByName() {
    DeviceConfig.Builder b = DeviceConfig.builder();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> b.tcpKeepAlive(Duration.ofMillis(1500), Duration.ofSeconds(1), 3));
    assertTrue(e.getMessage().contains("tcpKeepIdle"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> b.tcpKeepAlive(Duration.ofSeconds(1), Duration.ofSeconds(1), 128));
    assertTrue(e.getMessage().contains("tcpKeepCount"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> b.tcpUserTimeout(Duration.ZERO));
    assertTrue(e.getMessage().contains("tcpUserTimeout"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> b.maxStartupConnectionsPerSource(0));
    assertTrue(e.getMessage().contains("maxStartupConnectionsPerSource"), e.getMessage());
    DeviceConfig c = b.tcpKeepAlive(Duration.ofSeconds(60), Duration.ofSeconds(10), 5)
        .tcpUserTimeout(Duration.ofSeconds(20)).build();
    assertTrue(c.tcpKeepAlive());
    assertEquals(Duration.ofSeconds(60), c.tcpKeepIdle());
    assertEquals(Duration.ofSeconds(20), c.tcpUserTimeout());
    assertEquals(DeviceConfig.DEFAULT_MAX_STARTUP_CONNECTIONS_PER_SOURCE,
        c.maxStartupConnectionsPerSource());
  }
}
