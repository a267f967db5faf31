package io.iwarp4j.ddp.mem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The default base TO is the native address, with Netty's Unsafe or, on JDK 22+, without it. */
class NativeAddressTest {

  @Test
  void theFfmApiGivesTheAddressNettyReports() {
    assumeTrue(NativeAddress.ffmAvailable(), "the final FFM API needs JDK 22 or later");
    ByteBuf buf = Unpooled.directBuffer(64);
    try {
      assumeTrue(buf.hasMemoryAddress(), "Netty runs without Unsafe: nothing to compare with");
      assertEquals(buf.memoryAddress(), NativeAddress.viaFfm(buf.nioBuffer(0, 64)));
      assertEquals(buf.memoryAddress() + 8, NativeAddress.viaFfm(buf.nioBuffer(8, 8)));
    } finally {
      buf.release();
    }
  }

  @Test
  void nettysAddressIsUsedWhenItIsKnown() {
    ByteBuf buf = Unpooled.directBuffer(16);
    try {
      assumeTrue(buf.hasMemoryAddress(), "Netty runs without Unsafe");
      assertEquals(buf.memoryAddress(), NativeAddress.of(buf));
    } finally {
      buf.release();
    }
  }
}
