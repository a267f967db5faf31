package io.iwarp4j.verbs;


/** {@link VerbsEndToEndTest} on the JDK NIO transport. */
class VerbsEndToEndNioTest extends VerbsEndToEndTest {
  @Override
  Transport transport() {
    return Transport.NIO;
  }
}
