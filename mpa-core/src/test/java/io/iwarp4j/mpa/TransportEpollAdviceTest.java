package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The one line AUTO logs when it falls back to NIO on Linux: the fix for where it runs. */
class TransportEpollAdviceTest {
  @Test
  void modulePathNamesTheModuleToAdd() {
    String a = Transport.EpollAbsence.advice("Linux", "amd64", true);
    assertTrue(a.contains("--add-modules io.netty.transport.epoll.linux.x86_64"), a);
    assertTrue(a.startsWith("Netty's native epoll transport is not available: using NIO"), a);
  }

  @Test
  void classPathNamesTheArtifact() {
    assertEquals("Netty's native epoll transport is not available: using NIO (slower); put"
        + " io.netty:netty-transport-native-epoll:linux-aarch_64 on the class path"
        + " (docs/configuration.md)", Transport.EpollAbsence.advice("Linux", "aarch64", false));
  }

  @Test
  void offLinuxNioIsAllThereIs() {
    assertNull(Transport.EpollAbsence.advice("Mac OS X", "aarch64", true));
    assertNull(Transport.EpollAbsence.advice("Windows 11", "amd64", false));
  }
}
