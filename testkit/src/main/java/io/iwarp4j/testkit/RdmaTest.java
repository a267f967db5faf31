package io.iwarp4j.testkit;

import io.iwarp4j.verbs.PollMode;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Turns on the {@link RdmaExtension} for a test class or method and configures what it injects:
 * an {@link RdmaPair} (two devices, a connected queue pair on each, a registered region each
 * side knows the other's {@link io.iwarp4j.verbs.RemoteBuffer} of) and fresh {@link
 * io.iwarp4j.verbs.RdmaDevice}s, into test method parameters and into fields of those types.
 *
 * <p>An annotation on the method replaces the one on the class as a whole (values are not
 * merged). Everything injected is closed after each test, and the test fails if a work request
 * of the pair was left uncompleted, a completion was left unpolled, or Netty reported a leaked
 * buffer. Example:
 *
 * <pre>{@code
 * @RdmaTest(crc = false, sendQueueDepth = 4)
 * class MyServiceTest {
 *   @Test
 *   void writes(RdmaPair pair) { ... }
 * }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RdmaExtension.class)
public @interface RdmaTest {
  /**
   * Whether the pair negotiates MPA CRC32c (RFC 5044 §4.4).
   *
   * @return true for CRC on (the default)
   */
  boolean crc() default true;

  /**
   * Whether the pair negotiates MPA Markers (RFC 5044 §5).
   *
   * @return true for Markers on; off by default
   */
  boolean markers() default false;

  /**
   * The inbound RDMA Read queue depth of each queue pair.
   *
   * @return IRD, 4 by default
   */
  int ird() default 4;

  /**
   * The outbound RDMA Read queue depth of each queue pair.
   *
   * @return ORD, 4 by default
   */
  int ord() default 4;

  /**
   * Send work requests each queue pair holds.
   *
   * @return the send queue depth, 16 by default
   */
  int sendQueueDepth() default 16;

  /**
   * Receive work requests each queue pair holds.
   *
   * @return the receive queue depth, 16 by default
   */
  int recvQueueDepth() default 16;

  /**
   * Scatter/gather elements per work request.
   *
   * @return the SGE limit of both queues, 4 by default
   */
  int maxSge() default 4;

  /**
   * Capacity of each side's completion queue (shared by its send and receive queues).
   *
   * @return the CQ capacity, 256 by default
   */
  int cqCapacity() default 256;

  /**
   * Octets of each side's registered region (local write, remote read and write).
   *
   * @return the region size, 64 KiB by default
   */
  int regionSize() default 64 * 1024;

  /**
   * How the devices' threads wait for work.
   *
   * @return the poll mode, {@link PollMode#PARKED} by default
   */
  PollMode pollMode() default PollMode.PARKED;

  /**
   * Whether the pair's TCP connection runs through a {@link FaultProxy} the test controls
   * ({@link RdmaPair#proxy()}).
   *
   * @return true to connect through the proxy; false by default
   */
  boolean viaProxy() default false;

  /**
   * How long set-up and every completion wait of the pair's {@link Completions} may take.
   *
   * @return milliseconds, 5000 by default
   */
  long timeoutMillis() default 5000;
}
