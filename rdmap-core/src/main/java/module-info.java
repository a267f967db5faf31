/**
 * RDMAP (RFC 5040, RFC 7306) over DDP. Exported only to the verbs API, which is the public face
 * of the stack.
 */
@SuppressWarnings("module") // the qualified export names a module that is compiled later
module io.iwarp4j.rdmap {
  requires io.iwarp4j.mpa;
  requires io.iwarp4j.ddp;
  requires io.iwarp4j.wire;
  requires org.slf4j;

  exports io.iwarp4j.rdmap to io.iwarp4j.verbs;
}
