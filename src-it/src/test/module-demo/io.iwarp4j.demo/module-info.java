/**
 * A user's application on the module path: it requires only the verbs API, whose module reads
 * MPA, DDP and Netty's buffers transitively (ModulePathDemoIT compiles and runs it).
 */
module io.iwarp4j.demo {
  requires io.iwarp4j.verbs;
}
