package io.iwarp4j.verbs;

/**
 * The Netty transport a device's connections run on ({@link DeviceConfig#transport()}).
 * {@link #AUTO} picks the native epoll transport where it is available (Linux with Netty's
 * native library on the class or module path) and NIO otherwise; the other two force one.
 */
public enum Transport {
  /** Epoll where available, else NIO. */
  AUTO(io.iwarp4j.mpa.Transport.AUTO),
  /** The native Linux epoll transport; opening a device fails where it is unavailable. */
  EPOLL(io.iwarp4j.mpa.Transport.EPOLL),
  /** The JDK NIO transport, available everywhere. */
  NIO(io.iwarp4j.mpa.Transport.NIO);

  private final io.iwarp4j.mpa.Transport mpa;

  Transport(io.iwarp4j.mpa.Transport mpa) {
    this.mpa = mpa;
  }

  /** The MPA layer's transport this stands for. */
  io.iwarp4j.mpa.Transport mpa() {
    return mpa;
  }

  /** The API's name for the MPA layer's transport. */
  static Transport of(io.iwarp4j.mpa.Transport mpa) {
    for (Transport t : values()) {
      if (t.mpa == mpa) {
        return t;
      }
    }
    throw new IllegalArgumentException("no verbs transport for " + mpa);
  }
}
