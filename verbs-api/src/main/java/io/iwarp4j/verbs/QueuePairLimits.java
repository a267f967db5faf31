package io.iwarp4j.verbs;

/**
 * The capabilities a new queue pair gets ({@link RdmaDevice#createQueuePair}): what its
 * configuration asks, the device's default where it does not say, each checked against the
 * device's limit ({@link DeviceConfig}); with a shared receive queue, that queue's receive side.
 */
final class QueuePairLimits {
  private QueuePairLimits() {
  }

  /**
   * The capabilities for {@code qpConfig} on a device configured with {@code config}.
   *
   * @throws IllegalArgumentException when a value exceeds the device's limit or the shared
   *     receive queue belongs to another protection domain than {@code pd}
   * @throws IllegalStateException when the shared receive queue is closed
   */
  static QueuePairCapabilities resolve(DeviceConfig config, ProtectionDomain pd,
      QueuePairConfig qpConfig) {
    SharedReceiveQueue srq = qpConfig.sharedReceiveQueue();
    if (srq != null) {
      checkSharedReceiveQueue(pd, srq);
    }
    return new QueuePairCapabilities(
        limit("maxSendWr", qpConfig.maxSendWr(), config.defaultSendWr(), config.maxSendWr()),
        srq != null ? RdmaDevice.SHARED_RECEIVES_HELD
            : limit("maxRecvWr", qpConfig.maxRecvWr(), config.defaultRecvWr(),
                config.maxRecvWr()),
        limit("maxSendSge", qpConfig.maxSendSge(), config.defaultSge(), config.maxSge()),
        srq != null ? srq.maxSge()
            : limit("maxRecvSge", qpConfig.maxRecvSge(), config.defaultSge(), config.maxSge()),
        qpConfig.ird() >= 0 ? qpConfig.ird() : config.defaultIrd(),
        qpConfig.ord() >= 0 ? qpConfig.ord() : config.defaultOrd(),
        qpConfig.rfc7306() != null ? qpConfig.rfc7306() : config.rfc7306(),
        limit("maxInlineData", qpConfig.maxInlineData(), config.defaultInlineData(),
            config.maxInlineData()));
  }

  private static void checkSharedReceiveQueue(ProtectionDomain pd, SharedReceiveQueue srq) {
    if (srq.pd() != pd) {
      throw new IllegalArgumentException("shared receive queue " + srq.number() + " belongs to "
          + srq.pd() + ", not to the queue pair's " + pd + ": a queue pair takes receives only"
          + " from a shared receive queue of its own protection domain");
    }
    if (srq.isClosed()) {
      throw new IllegalStateException("shared receive queue " + srq.number() + " is closed");
    }
  }

  private static int limit(String what, int asked, int dflt, int max) {
    int n = asked == QueuePairConfig.DEVICE_DEFAULT ? dflt : asked;
    if (n > max) {
      throw new IllegalArgumentException(what + " " + n + " exceeds the device's limit of " + max);
    }
    return n;
  }
}
