package io.iwarp4j.ddp.mem;

import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * The native address of direct memory, for the default base Tagged Offset of a region.
 *
 * <p>Netty reports it when it runs with {@code sun.misc.Unsafe}. On JDK 24 and later Netty runs
 * without Unsafe unless the JVM is started with {@code --sun-misc-unsafe-memory-access=allow};
 * there the Foreign Function and Memory API ({@code MemorySegment.ofBuffer(buffer).address()},
 * final since JDK 22) gives the same address. It is looked up reflectively because the baseline
 * is Java 17, where Netty always has Unsafe.
 */
final class NativeAddress {
  private static final MethodHandle OF_BUFFER;
  private static final MethodHandle ADDRESS;

  static {
    MethodHandle ofBuffer = null;
    MethodHandle address = null;
    try {
      Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      ofBuffer = lookup.findStatic(segment, "ofBuffer", MethodType.methodType(segment, Buffer.class));
      address = lookup.findVirtual(segment, "address", MethodType.methodType(long.class));
    } catch (ReflectiveOperationException | LinkageError e) {
      // Java 17-21: no final FFM API; Netty has Unsafe there.
    }
    OF_BUFFER = ofBuffer;
    ADDRESS = address;
  }

  private NativeAddress() {
  }

  /** Whether the FFM API is there to read addresses (JDK 22 and later). */
  static boolean ffmAvailable() {
    return OF_BUFFER != null;
  }

  /** The native address of a direct buffer's first octet, through the FFM API. */
  static long viaFfm(ByteBuffer direct) {
    try {
      return (long) ADDRESS.invoke(OF_BUFFER.invoke(direct));
    } catch (Throwable e) {
      throw new IllegalStateException("could not read the native address of " + direct, e);
    }
  }

  /**
   * The native address of the first octet of {@code memory} (a direct buffer), or throws
   * IllegalStateException naming why it cannot be known.
   */
  static long of(ByteBuf memory) {
    if (memory.hasMemoryAddress()) {
      return memory.memoryAddress();
    }
    if (OF_BUFFER != null && memory.isDirect() && memory.nioBufferCount() == 1) {
      return viaFfm(memory.nioBuffer(0, memory.capacity()));
    }
    throw new IllegalStateException("the native address of this memory is unavailable (Netty runs "
        + "without Unsafe and the JDK has no final FFM API); register with "
        + "RegionOptions.zeroBased() or baseTo(...)");
  }
}
