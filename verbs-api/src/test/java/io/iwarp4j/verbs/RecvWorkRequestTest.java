package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class RecvWorkRequestTest {

  private final FakeBuffer buf = new FakeBuffer(256, 0x5);

  @Test
  void validateChecksTheQueuePairsSgeLimit() {
    RecvWorkRequest wr = new RecvWorkRequest(3).wrId(9).addSge(buf, 0, 16).addSge(buf, 16, 16);
    assertDoesNotThrow(() -> wr.validate(2));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> wr.validate(1));
    assertEquals("receive work request (wrId 9): 2 SGEs exceed the queue pair's maximum of 1",
        e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> wr.validate(-1));
  }

  @Test
  void validateRejectsBuffersLongerThanAnyMessage() {
    FakeBuffer huge = new FakeBuffer(SendWorkRequest.MAX_MESSAGE_LENGTH + 1, 1);
    RecvWorkRequest wr = new RecvWorkRequest(1).addSge(huge, 0, huge.length());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> wr.validate(1));
    assertEquals("receive work request (wrId 0): length 4294967296 exceeds the RDMAP maximum"
        + " message length of 4294967295 octets", e.getMessage());
  }

  @Test
  void copyFromAndReset() {
    RecvWorkRequest source = new RecvWorkRequest(2).wrId(3).addSge(buf, 8, 8);
    RecvWorkRequest copy = new RecvWorkRequest(2).copyFrom(source);
    assertEquals(3, copy.wrId());
    assertEquals(1, copy.sgl().count());
    assertEquals(8, copy.sgl().offset(0));
    copy.reset();
    assertEquals(0, copy.wrId());
    assertEquals(0, copy.sgl().count());
    assertEquals("RecvWorkRequest{wrId=3, sgl=[0x5@8+8]}", source.toString());
  }
}
