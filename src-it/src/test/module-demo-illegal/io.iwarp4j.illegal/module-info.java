/** An application module that reaches for the verbs API's internals: must not compile. */
module io.iwarp4j.illegal {
  requires io.iwarp4j.verbs;
}
