package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.AccessFlags;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The 20-line example of the top-level {@code README.md}, compiled and run over 127.0.0.1. The
 * code between the {@code readme-example} markers must appear verbatim in the README's Java
 * block; {@link #theReadmeShowsExactlyThisCode()} checks that, so the front page cannot drift
 * from the API.
 */
@Timeout(30)
class ReadmeExampleTest {
  private static final String BEGIN = "// BEGIN readme-example";
  private static final String END = "// END readme-example";

  @Test
  void clientWritesAndReadsBackTheServersRegion() throws Exception {
    // BEGIN readme-example
    // Server: expose 4 KiB to remote Write and Read; its STag and address go in the MPA Reply.
    RdmaDevice server = RdmaDevice.open();
    ProtectionDomain spd = server.allocateProtectionDomain();
    CompletionQueue scq = server.createCompletionQueue(16);
    QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq).build());
    MemoryRegion exposed = spd.allocate(4096,
        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
    RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), request ->
        request.accept(sqp, AcceptParams.builder().privateData(exposed.remote().toBytes()).build()));

    // Client: connect, RDMA Write "hello" into the server's memory, RDMA Read it back.
    RdmaDevice client = RdmaDevice.open();
    ProtectionDomain cpd = client.allocateProtectionDomain();
    CompletionQueue ccq = client.createCompletionQueue(16);
    QueuePair cqp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq).build());
    MemoryRegion local = cpd.allocate(4096, AccessFlags.LOCAL_WRITE);
    RemoteBuffer remote = RemoteBuffer.fromBytes(client.connect(cqp, listener.localAddress())
        .get(5, TimeUnit.SECONDS).peerPrivateData(), 0);
    local.buffer().setBytes(0, "hello".getBytes(StandardCharsets.US_ASCII));
    cqp.postSend(new SendWorkRequest(1).opcode(WorkRequestOpcode.RDMA_WRITE)
        .remote(remote.stag(), remote.address()).addSge(local, 0, 5));
    cqp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(remote.stag(), remote.address()).addSge(local, 100, 5));
    WorkCompletion[] wc = {new WorkCompletion()};
    int n = ccq.await(wc, 5, TimeUnit.SECONDS); // 1: RDMA_READ, SUCCESS; local[100, 105) = hello
    String readBack = local.buffer().toString(100, 5, StandardCharsets.US_ASCII);
    client.close();
    server.close();
    // END readme-example

    assertEquals(1, n);
    assertTrue(wc[0].isSuccess(), wc[0]::toString);
    assertEquals(WcOpcode.RDMA_READ, wc[0].opcode());
    assertEquals("hello", readBack);
  }

  @Test
  void theReadmeShowsExactlyThisCode() throws IOException {
    // Surefire runs in the module's directory (as ApiExampleTest relies on too).
    String readme = Files.readString(Path.of("../README.md"));
    String snippet = String.join("\n", DocSnippet.between(
        Path.of("src/test/java/io/iwarp4j/verbs/ReadmeExampleTest.java"), BEGIN, END)) + "\n";
    assertTrue(readme.contains(snippet),
        "README.md's Java example differs from ReadmeExampleTest's; expected in README.md:\n"
            + snippet);
  }
}
