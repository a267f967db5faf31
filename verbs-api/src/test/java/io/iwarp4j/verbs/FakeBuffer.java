package io.iwarp4j.verbs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/** A LocalBuffer of a given length for tests that never touch the memory itself. */
record FakeBuffer(long length, int stag) implements LocalBuffer {
  @Override
  public ByteBuf buffer() {
    return Unpooled.EMPTY_BUFFER; // not reference counted: nothing to release
  }
}
