package io.iwarp4j.verbs;

import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.verbs.engine.QpEventSink;
import java.util.ArrayList;
import java.util.List;

/**
 * A queue pair on a hand-run loop and a {@link FakeEndpoint}, with real registered memory, for
 * unit tests of the queue pair's own logic. Close it: it frees the memory it allocated.
 */
final class QpHarness implements AutoCloseable {
  /** One reported queue pair error. */
  record ErrorEvent(TerminateInfo terminate, String reason) {
  }

  final StagTable table = new StagTable(64);
  final ProtectionDomain pd = new ProtectionDomain(null, table.newProtectionDomain());
  final MemoryRegion mr = pd.allocate(4096,
      AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
  final CompletionQueue sendCq;
  final CompletionQueue recvCq;
  final QueuePair qp;
  final ManualLoop loop = new ManualLoop();
  final FakeEndpoint ep = new FakeEndpoint();
  final List<ErrorEvent> errors = new ArrayList<>();
  private final QpEventSink sink = (q, t, reason) -> errors.add(new ErrorEvent(t, reason));
  private final WorkCompletion[] polled = newCompletions(64);

  QpHarness(int sendWr, int recvWr, int cqCapacity) {
    this(sendWr, recvWr, cqCapacity, cqCapacity, false);
  }

  QpHarness(int sendWr, int recvWr, int sendCqCapacity, int recvCqCapacity, boolean signalAll) {
    this(sendWr, recvWr, sendCqCapacity, recvCqCapacity, signalAll, true);
  }

  QpHarness(int sendWr, int recvWr, int sendCqCapacity, int recvCqCapacity, boolean signalAll,
      boolean rfc7306) {
    sendCq = new CompletionQueue(sendCqCapacity);
    recvCq = new CompletionQueue(recvCqCapacity);
    qp = new QueuePair(null, 7, pd, sendCq, recvCq,
        new QueuePairCapabilities(sendWr, recvWr, 2, 2, 8, 8, rfc7306), signalAll);
  }

  static WorkCompletion[] newCompletions(int n) {
    WorkCompletion[] a = new WorkCompletion[n];
    for (int i = 0; i < n; i++) {
      a[i] = new WorkCompletion();
    }
    return a;
  }

  /** Binds the loop and attaches the fake endpoint: RTR. */
  QpHarness attached() {
    qp.binding().bindLoop(loop);
    if (!qp.binding().attach(ep, sink, null)) {
      throw new AssertionError("attach refused in " + qp.state());
    }
    return this;
  }

  /** Binds, attaches and enables sending: RTS. */
  QpHarness connected() {
    attached();
    if (!qp.binding().enableSend()) {
      throw new AssertionError("enableSend refused in " + qp.state());
    }
    return this;
  }

  SendWorkRequest write(long wrId, int flags) {
    return new SendWorkRequest(2).wrId(wrId).opcode(WorkRequestOpcode.RDMA_WRITE).flags(flags)
        .remote(0x1234, 0x1000).addSge(mr, 0, 64);
  }

  SendWorkRequest read(long wrId, int flags) {
    return new SendWorkRequest(2).wrId(wrId).opcode(WorkRequestOpcode.RDMA_READ).flags(flags)
        .remote(0x5678, 0x2000).addSge(mr, 128, 32);
  }

  SendWorkRequest send(long wrId, int flags) {
    return new SendWorkRequest(2).wrId(wrId).opcode(WorkRequestOpcode.SEND).flags(flags)
        .addSge(mr, 256, 16);
  }

  RecvWorkRequest recv(long wrId) {
    return new RecvWorkRequest(2).wrId(wrId).addSge(mr, 1024, 512);
  }

  void completeSend(long token) {
    qp.endpointListener().onSendComplete(token);
    qp.endpointListener().onCompletionsReported();
  }

  void completeRead(long token, long length) {
    ep.readDone();
    qp.endpointListener().onReadComplete(token, length);
    qp.endpointListener().onCompletionsReported();
  }

  /** Everything on the send CQ now, copied. */
  List<WorkCompletion> sendCompletions() {
    return drain(sendCq);
  }

  /** Everything on the receive CQ now, copied. */
  List<WorkCompletion> recvCompletions() {
    return drain(recvCq);
  }

  private List<WorkCompletion> drain(CompletionQueue cq) {
    List<WorkCompletion> out = new ArrayList<>();
    int n;
    while ((n = cq.poll(polled)) > 0) {
      for (int i = 0; i < n; i++) {
        out.add(new WorkCompletion().copyFrom(polled[i]));
      }
    }
    return out;
  }

  @Override
  public void close() {
    if (qp.state() != QpState.CLOSED) {
      qp.close();
    }
    loop.runAll();
    pd.closeAll();
  }
}
