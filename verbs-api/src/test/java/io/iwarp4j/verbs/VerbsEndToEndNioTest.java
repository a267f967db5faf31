package io.iwarp4j.verbs;

import io.iwarp4j.mpa.Transport;

/** {@link VerbsEndToEndTest} on the JDK NIO transport. */
class VerbsEndToEndNioTest extends VerbsEndToEndTest {
  @Override
  Transport transport() {
    return Transport.NIO;
  }
}
