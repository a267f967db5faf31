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
   * The EMSS the socket reports. Reading the kernel's TCP_MAXSEG on epoll channels is not
   * implemented yet (it belongs here); until then every transport gets
   * {@link Mulpdu#DEFAULT_EMSS}.
   */
  static int fromSocket(Channel channel) {
    return Mulpdu.DEFAULT_EMSS;
  }
}
