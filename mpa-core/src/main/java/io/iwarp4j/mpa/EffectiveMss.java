package io.iwarp4j.mpa;

import io.netty.channel.Channel;

/** Where the EMSS an MPA connection sizes its FPDUs by comes from (RFC 5044 §4.5). */
final class EffectiveMss {
  private EffectiveMss() {
  }

  /**
   * The EMSS for {@code channel}: the configured {@link MpaSettings#emss()} when it is not 0,
   * otherwise {@link #fromSocket}.
   */
  static int of(Channel channel, MpaSettings settings) {
    int configured = settings.emss();
    return configured != 0 ? configured : fromSocket(channel);
  }

  /**
   * The EMSS the socket reports: the kernel's MSS from TCP_INFO on the epoll transport (65483 on
   * loopback, about 1448 on an Ethernet path with timestamps), else {@link Mulpdu#DEFAULT_EMSS}
   * because NIO cannot read TCP_MAXSEG portably.
   */
  static int fromSocket(Channel channel) {
    int mss = Transport.kernelMss(channel);
    return mss >= 64 ? mss : Mulpdu.DEFAULT_EMSS;
  }
}
