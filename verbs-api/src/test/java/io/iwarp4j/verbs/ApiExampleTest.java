package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client/server example of {@code docs/api.md}, compiled and run over 127.0.0.1. The code
 * between the {@code api-example} markers must be identical to the block in the guide;
 * {@link #theGuideShowsExactlyThisCode()} checks that.
 */
@Timeout(30)
class ApiExampleTest {
  private static final String BEGIN = "// BEGIN api-example";
  private static final String END = "// END api-example";

  @Test
  void clientWritesAndReadsBackTheServersRegion() throws Exception {
    // BEGIN api-example
    // Server: listen, accept with a QP, post a receive, advertise a region with a Send.
    RdmaDevice server = RdmaDevice.open();
    ProtectionDomain spd = server.allocateProtectionDomain();
    CompletionQueue scq = server.createCompletionQueue(64);
    QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq).build());
    MemoryRegion exposed = spd.allocate(4096,
        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
    MemoryRegion advert = spd.allocate(64, AccessFlags.LOCAL_WRITE);
    advert.buffer().setBytes(0, exposed.remote().toBytes());
    sqp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(advert, 32, 32));
    RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
        request -> request.accept(sqp).thenRun(() -> sqp.postSend(new SendWorkRequest(1)
            .opcode(WorkRequestOpcode.SEND).addSge(advert, 0, RemoteBuffer.ENCODED_LENGTH))));

    // Client: connect, receive the advertisement, RDMA Write, RDMA Read back, poll the CQ.
    RdmaDevice client = RdmaDevice.open();
    ProtectionDomain cpd = client.allocateProtectionDomain();
    CompletionQueue ccq = client.createCompletionQueue(64);
    QueuePair cqp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq).build());
    MemoryRegion local = cpd.allocate(4096, AccessFlags.LOCAL_WRITE);
    cqp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(local, 0, RemoteBuffer.ENCODED_LENGTH));
    client.connect(cqp, listener.localAddress(), ConnectParams.builder().peerToPeer(true).build())
        .get(5, TimeUnit.SECONDS); // peer-to-peer: the server may send first
    WorkCompletion[] wc = {new WorkCompletion()};
    if (ccq.await(wc, 5, TimeUnit.SECONDS) != 1 || !wc[0].isSuccess()) {
      throw new IllegalStateException("no advertisement: " + wc[0]);
    }
    byte[] ad = new byte[RemoteBuffer.ENCODED_LENGTH];
    local.buffer().getBytes(0, ad);
    RemoteBuffer remote = RemoteBuffer.fromBytes(ad, 0);
    local.buffer().setBytes(0, "hello, iWARP".getBytes(StandardCharsets.US_ASCII));
    cqp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.RDMA_WRITE)
        .remote(remote.stag(), remote.address()).addSge(local, 0, 12));
    cqp.postSend(new SendWorkRequest(1).wrId(3).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(remote.stag(), remote.address()).addSge(local, 2048, 12));
    if (ccq.await(wc, 5, TimeUnit.SECONDS) != 1 || !wc[0].isSuccess() || wc[0].wrId() != 3) {
      throw new IllegalStateException("RDMA Read failed: " + wc[0]);
    }
    String readBack = local.buffer().toString(2048, 12, StandardCharsets.US_ASCII);
    System.out.println("read back: " + readBack);
    client.close();
    server.close();
    // END api-example

    assertEquals("hello, iWARP", readBack);
    assertEquals(WcOpcode.RDMA_READ, wc[0].opcode());
    assertTrue(cqp.state() == QpState.CLOSED && sqp.state() == QpState.CLOSED);
  }

  @Test
  void theGuideShowsExactlyThisCode() throws IOException {
    List<String> inTest = DocSnippet.between(
        Path.of("src/test/java/io/iwarp4j/verbs/ApiExampleTest.java"), BEGIN, END);
    List<String> inGuide = DocSnippet.between(Path.of("../docs/api.md"), BEGIN, END);
    assertTrue(inTest.size() > 20, "the example is in the test: " + inTest.size() + " lines");
    assertEquals(String.join("\n", inTest), String.join("\n", inGuide),
        "docs/api.md and ApiExampleTest must show the same example code");
  }
}
