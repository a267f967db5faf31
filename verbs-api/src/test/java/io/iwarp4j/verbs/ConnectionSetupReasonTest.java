package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.ConnectException;
import org.junit.jupiter.api.Test;

/** A refused connect reads as the operating system's reason, once, on epoll and on NIO. */
class ConnectionSetupReasonTest {
  @Test
  void nettysEpollWrappingAndTheRepeatedAddressAreCut() {
    assertEquals("Connection refused", ConnectionSetup.osReason(new ConnectException(
        "finishConnect(..) failed with error(-111): Connection refused: /127.0.0.1:9")));
    assertEquals("Connection refused", ConnectionSetup.osReason(new ConnectException(
        "Connection refused: /127.0.0.1:9")));
    assertEquals("No route to host", ConnectionSetup.osReason(new ConnectException(
        "No route to host")));
  }
}
