package io.iwarp4j.verbs;

/**
 * How a device's threads wait for work ({@link DeviceConfig#pollMode()}).
 *
 * <p>{@link #PARKED}, the default, costs no CPU while idle: event loops block in epoll (or
 * select) and {@link CompletionQueue#await} parks at once. Each hand-off between an application
 * thread and an event loop may then cost a wake-up (an eventfd write and a futex), tens of
 * microseconds on a virtual machine.
 *
 * <p>{@link #BUSY_POLL} trades CPU for latency, as perftest's and libibverbs' busy-polling users
 * do: event loops never block (Netty's epoll busy-wait: a zero-timeout {@code epoll_wait} per
 * turn; with NIO a {@code selectNow} per turn), and {@code await} on the device's completion
 * queues spins for {@link DeviceConfig#awaitSpinNanos()} before it parks. Each event loop keeps
 * one core busy all the time, and each thread in {@code await} one more while it spins. Every
 * spin yields its core now and then, which costs nothing with a core to spare; with more
 * spinning threads than cores they still take turns at the scheduler's pace, and latency is no
 * better than parked.
 */
public enum PollMode {
  /** Event loops block when idle; {@code await} parks at once. */
  PARKED,
  /** Event loops busy-poll; {@code await} spins before it parks. */
  BUSY_POLL
}
