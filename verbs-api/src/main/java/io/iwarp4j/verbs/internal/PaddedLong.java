package io.iwarp4j.verbs.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A {@code long} alone on its cache line, with the access modes the rings need.
 *
 * <p>Ring positions written by one side and read by the other would otherwise share a cache
 * line with the other side's position and bounce between cores on every operation. The
 * padding sits in superclasses because the JVM lays out superclass fields first and may
 * reorder the fields of one class.
 */
public final class PaddedLong extends PaddedLongValue {

  private static final VarHandle VALUE;

  static {
    try {
      VALUE = MethodHandles.lookup().findVarHandle(PaddedLongValue.class, "value", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  long p10;
  long p11;
  long p12;
  long p13;
  long p14;
  long p15;
  long p16;
  long p17;

  /**
   * Creates one holding {@code initial}.
   *
   * @param initial the first value
   */
  public PaddedLong(long initial) {
    VALUE.setRelease(this, initial);
  }

  /**
   * Volatile read.
   *
   * @return the value
   */
  public long getVolatile() {
    return (long) VALUE.getVolatile(this);
  }

  /**
   * Acquire read: later reads and writes stay after it.
   *
   * @return the value
   */
  public long getAcquire() {
    return (long) VALUE.getAcquire(this);
  }

  /**
   * Opaque read: atomic and eventually fresh, with no ordering of other accesses.
   *
   * @return the value
   */
  public long getOpaque() {
    return (long) VALUE.getOpaque(this);
  }

  /**
   * Volatile write.
   *
   * @param v the new value
   */
  public void setVolatile(long v) {
    VALUE.setVolatile(this, v);
  }

  /**
   * Release write: earlier reads and writes stay before it.
   *
   * @param v the new value
   */
  public void setRelease(long v) {
    VALUE.setRelease(this, v);
  }

  /**
   * Volatile compare-and-set.
   *
   * @param expected the value expected
   * @param v the new value
   * @return true when the value was {@code expected} and is now {@code v}
   */
  public boolean compareAndSet(long expected, long v) {
    return VALUE.compareAndSet(this, expected, v);
  }

  /**
   * Volatile compare-and-exchange.
   *
   * @param expected the value expected
   * @param v the new value
   * @return the value found: {@code expected} on success
   */
  public long compareAndExchange(long expected, long v) {
    return (long) VALUE.compareAndExchange(this, expected, v);
  }
}

/** Padding before the value. */
abstract class PaddedLongLeftPad {
  long p00;
  long p01;
  long p02;
  long p03;
  long p04;
  long p05;
  long p06;
  long p07;
}

/** The value, accessed only through {@link PaddedLong}'s VarHandle. */
abstract class PaddedLongValue extends PaddedLongLeftPad {
  long value;
}
