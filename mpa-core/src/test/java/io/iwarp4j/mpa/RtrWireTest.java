package io.iwarp4j.mpa;

import static io.iwarp4j.testing.Hex.toHex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.iwarp4j.testing.Hex;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.RtrFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each RTR type is sent as, and recognised from, its RFC 6581 §9.2 frame (mpa.md §9.3). */
class RtrWireTest {
  static final String SEND = "41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00";
  static final String WRITE = "c1 40 00 00 00 00 00 00 00 00 00 00 00 00";
  static final String READ = "41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00"
      + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";
  static final String READ_RESPONSE = "c1 42 00 00 00 00 00 00 00 00 00 00 00 00";
  private static final Map<RtrType, String> VECTORS =
      Map.of(RtrType.SEND, SEND, RtrType.WRITE, WRITE, RtrType.READ, READ);

  @Test
  void eachTypeRoundTripsThroughItsFrame() {
    for (RtrType t : RtrType.values()) {
      ByteBuf b = Unpooled.buffer();
      assertEquals(RtrFrames.length(RtrWire.of(t)), RtrFrames.write(b, RtrWire.of(t)));
      byte[] frame = Hex.bytes(b);
      assertEquals(VECTORS.get(t), toHex(frame), t.name());
      Ulpdu u = new Ulpdu(1);
      u.addPiece(b, 0, frame.length);
      assertEquals(t, RtrWire.of(RtrFrames.match(u)));
      b.release();
    }
    assertNull(RtrWire.of((RdmapOpcode) null));
  }
}
