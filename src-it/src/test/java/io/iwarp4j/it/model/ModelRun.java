package io.iwarp4j.it.model;

import static io.iwarp4j.it.model.CompletionChecker.check;

import io.iwarp4j.it.model.Op.Type;
import io.iwarp4j.it.model.QueuePairModel.Fault;
import io.iwarp4j.it.model.WorkRequestModel.Kind;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.AtomicCapability;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.CountersSnapshot;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.SharedReceiveQueue;
import io.iwarp4j.verbs.SharedReceiveQueueConfig;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One seeded run: two devices over 127.0.0.1, four connected queue pairs (two sharing their
 * completion queues, one with separate send and receive queues, one whose server end takes its
 * receives from a shared receive queue), two protection domains per device, regions over
 * caller-owned memory. Executes the generator's operations on the real API, keeps the model in
 * step, has every completion checked, and at the end closes everything and checks memory,
 * counters and references.
 */
final class ModelRun implements AutoCloseable {
  static final int PAIRS = 4;
  /** The pair whose connections go through {@link ResettableLink}: it can lose them abruptly. */
  static final int RELAYED_PAIR = 2;
  private static final int REGION_LENGTH = 128 * 1024;
  private static final int RECEIVE_LENGTH = 4096;
  private static final int MAX_SEND_WR = 32;
  private static final int MAX_RECV_WR = 32;
  private static final int CQ_CAPACITY = 4096;
  private static final long T = 10;
  private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
  private static final Pattern WR_ID = Pattern.compile("wrId (\\d+)");

  private final long seed;
  private final OpLog log = new OpLog(60);
  private final CompletionChecker checker = new CompletionChecker();
  private final RdmaDevice[] devices = new RdmaDevice[2];
  private final ProtectionDomain[][] pds = new ProtectionDomain[2][2];
  private final CompletionQueue[] cqs = new CompletionQueue[6];
  private final QueuePairModel[][] pairs = new QueuePairModel[PAIRS][2];
  private final List<RegionModel> regions = new ArrayList<>();
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
  /** Connection events that came for a connection the model thinks healthy: "pair side epoch". */
  private final Queue<String> events = new ConcurrentLinkedQueue<>();
  private final WorkCompletion[] batch = new WorkCompletion[32];
  private final long[] flushesPerDevice = new long[2];
  private SharedReceiveQueue srq;
  private RdmaListener listener;
  private ResettableLink link;
  private OperationGenerator generator;
  private long nextWrId = 1;
  private int step;
  private int regionsMade;
  private Op current;
  private final java.util.Map<Type, Integer> executed = new java.util.EnumMap<>(Type.class);

  ModelRun(long seed) {
    this.seed = seed;
    for (int i = 0; i < batch.length; i++) {
      batch[i] = new WorkCompletion();
    }
  }

  /** Runs {@code steps} operations and the final checks; throws naming seed, step and tail. */
  void run(int steps) throws Exception {
    try {
      open();
      for (step = 1; step <= steps; step++) {
        Op op = generator.next();
        current = op;
        String outcome = execute(op);
        if (!outcome.contains("skipped") && !outcome.contains("already")) {
          executed.merge(op.type(), 1, Integer::sum);
        }
        log.add(step, op + (outcome.isEmpty() ? "" : " -> " + outcome));
      }
      log.add(step, "FINISH");
      finish();
    } catch (Throwable t) {
      throw new AssertionError("model test failed at step " + step + " of seed " + seed
          + " (replay: -Dmodel.seed=" + seed + " -Dmodel.steps=" + steps + "): " + t
          + "\nmodel: " + java.util.Arrays.deepToString(pairs) + "\nlast operations:\n  " + log + "\n  " + step + ": " + current + " (failed)",
          t);
    }
  }

  String summary() {
    return "seed " + seed + ": " + checker.all().size() + " work requests, " + checker.tally()
        + ", " + regionsMade + " regions; operations " + executed;
  }

  // ---- set-up ----

  private void open() throws Exception {
    for (int d = 0; d < 2; d++) {
      devices[d] = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(2).build());
      for (int p = 0; p < 2; p++) {
        pds[d][p] = devices[d].allocateProtectionDomain();
        for (int r = 0; r < 2; r++) {
          register(d, p);
        }
      }
      for (int c = 0; c < 3; c++) {
        cqs[3 * d + c] = devices[d].createCompletionQueue(CQ_CAPACITY);
      }
    }
    srq = pds[1][1].createSharedReceiveQueue(SharedReceiveQueueConfig.builder().maxWr(256)
        .build());
    listener = devices[1].listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
    link = new ResettableLink(listener.localAddress());
    for (int p = 0; p < PAIRS; p++) {
      int pd = p < 2 ? 0 : 1;
      for (int d = 0; d < 2; d++) {
        CompletionQueue send = p < 2 ? cqs[3 * d] : cqs[3 * d + 1];
        CompletionQueue recv = p < 2 ? cqs[3 * d] : cqs[3 * d + 2];
        pairs[p][d] = new QueuePairModel("P" + p + "." + "AB".charAt(d), d, p, pd, send, recv);
      }
      pairs[p][0].peer = pairs[p][1];
      pairs[p][1].peer = pairs[p][0];
      pairs[p][0].receives = new ReceivePool("P" + p + ".A receive queue", false);
      pairs[p][1].receives = p == 3 ? new ReceivePool("SRQ", true)
          : new ReceivePool("P" + p + ".B receive queue", false);
      pairs[p][0].newEpoch(createQueuePair(pairs[p][0]));
      pairs[p][1].newEpoch(createQueuePair(pairs[p][1]));
      connect(p);
    }
    boolean atomics = devices[0].atomicCapability() != AtomicCapability.NONE
        && devices[1].atomicCapability() != AtomicCapability.NONE;
    generator = new OperationGenerator(seed, pairs, regions, cqs.length, atomics);
  }

  private RegionModel register(int device, int pd) {
    RegionModel r = new RegionModel("R" + regionsMade++ + "." + "AB".charAt(device) + pd,
        device, pd, pds[device][pd], REGION_LENGTH, ALL);
    regions.add(r);
    return r;
  }

  private QueuePair createQueuePair(QueuePairModel q) {
    QueuePairConfig.Builder b = QueuePairConfig.builder(q.sendCq, q.recvCq)
        .maxSendWr(MAX_SEND_WR).maxRecvWr(MAX_RECV_WR).ird(8).ord(8);
    if (q.receives.shared) {
      b.sharedReceiveQueue(srq);
    }
    QueuePair qp = devices[q.device].createQueuePair(pds[q.device][q.pdIndex], b.build());
    return qp;
  }

  /** Connects pair {@code p}: A connects, B accepts, both in peer-to-peer mode. */
  private void connect(int p) throws Exception {
    QueuePairModel a = pairs[p][0];
    QueuePairModel b = pairs[p][1];
    checker.queuePair(a);
    checker.queuePair(b);
    int aEpoch = a.epoch();
    int bEpoch = b.epoch();
    CompletableFuture<RdmaConnection> cf = devices[0].connect(a.qp,
        p == RELAYED_PAIR ? link.address() : listener.localAddress(),
        ConnectParams.builder().peerToPeer(true).firstFpduDelay(Duration.ZERO).ird(8).ord(8)
            .eventListener(e -> event(a, aEpoch, e.type())).build());
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    check(request != null, "no connect request for P" + p);
    request.accept(b.qp, AcceptParams.builder().ird(8).ord(8)
        .eventListener(e -> event(b, bEpoch, e.type())).build()).get(T, TimeUnit.SECONDS);
    cf.get(T, TimeUnit.SECONDS);
  }

  /** On an event loop: records an end of a connection the model did not expect to end. */
  private void event(QueuePairModel q, int epoch, ConnectionEventType type) {
    if ((type == ConnectionEventType.ERROR || type == ConnectionEventType.DISCONNECTED)
        && epoch == q.epoch() && !q.doomed()) {
      events.add(type + " on " + q.name() + "#" + epoch + " at step " + step);
    }
  }

  // ---- operations ----

  private String execute(Op op) throws Exception {
    return switch (op.type()) {
      case POST_SEND -> postSend(pairs[op.pair()][op.side()], op);
      case POST_RECV -> postRecv(pairs[op.pair()][op.side()]);
      case POLL -> poll(cqs[op.index()]) + " completions";
      case REGISTER -> register(op.side(), op.index()).name();
      case DEREGISTER -> deregister(regions.get(op.index()), op.flag());
      case DEAD_STAG_ACCESS -> deadStagAccess(pairs[op.pair()][op.side()], op);
      case SEND_WITHOUT_RECEIVE -> sendWithoutReceive(pairs[op.pair()][op.side()]);
      case MODIFY_TO_ERROR -> fault(pairs[op.pair()][op.side()], Fault.MODIFY_TO_ERROR);
      case DISCONNECT -> fault(pairs[op.pair()][op.side()], Fault.DISCONNECT);
      case CLOSE_QP -> fault(pairs[op.pair()][op.side()], Fault.CLOSE);
      case ABRUPT_CLOSE -> abruptClose(pairs[op.pair()][0]);
      case REVIVE -> revive(op.pair(), op.flag());
      case QUIESCE -> quiesce();
    };
  }

  /** A fresh slice of a live region of the domain, registering one when all are full. */
  private Slice slice(int device, int pd, int length) {
    for (RegionModel r : regions) {
      if (r.device() == device && r.pdIndex() == pd && !r.deregistered()
          && r.free() >= length + 8) {
        return r.take(length);
      }
    }
    return register(device, pd).take(length);
  }

  private String postSend(QueuePairModel q, Op op) throws Exception {
    if (q.closed) {
      return "closed, skipped";
    }
    Kind kind = op.kind();
    WorkRequestModel w = newSend(q, kind, op.signaled());
    SendWorkRequest wr = new SendWorkRequest(1).wrId(w.wrId).opcode(kind.opcode)
        .flags(op.signaled() ? SendFlags.SIGNALED : 0);
    QueuePairModel peer = q.peer;
    if (kind.consumesReceive()) {
      peer.receives.available--;
    }
    switch (kind) {
      case SEND -> {
        w.local = slice(q.device, q.pdIndex, op.length());
        w.payload = WorkRequestModel.pattern(w.wrId, op.length());
        w.local.region().write(w.local, w.payload);
        wr.addSge(w.local.region().mr(), w.local.offset(), op.length());
      }
      case IMMEDIATE -> {
        w.immData = w.wrId;
        wr.immData(w.immData);
      }
      case WRITE, WRITE_IMMEDIATE -> {
        w.local = slice(q.device, q.pdIndex, op.length());
        w.remote = slice(peer.device, peer.pdIndex, op.length());
        w.payload = WorkRequestModel.pattern(w.wrId, op.length());
        w.local.region().write(w.local, w.payload);
        wr.addSge(w.local.region().mr(), w.local.offset(), op.length())
            .remote(w.remote.region().mr().stag(), w.remote.to());
        if (kind == Kind.WRITE_IMMEDIATE) {
          w.immData = w.wrId;
          wr.immData(w.immData);
        }
      }
      case READ -> {
        w.local = slice(q.device, q.pdIndex, op.length());
        w.remote = slice(peer.device, peer.pdIndex, op.length());
        w.payload = WorkRequestModel.pattern(w.wrId, op.length());
        w.remote.region().write(w.remote, w.payload);
        wr.addSge(w.local.region().mr(), w.local.offset(), op.length())
            .remote(w.remote.region().mr().stag(), w.remote.to());
      }
      case FETCH_ADD, CMP_SWAP -> {
        w.local = slice(q.device, q.pdIndex, 8);
        w.remote = slice(peer.device, peer.pdIndex, 8);
        w.original = generator.nextLong();
        w.operand = generator.nextLong();
        w.compare = generator.nextBoolean() ? w.original : w.original ^ 1;
        w.remote.region().mr().putLong(w.remote.offset(), w.original);
        wr.remote(w.remote.region().mr().stag(), w.remote.to())
            .localResult(w.local.region().mr(), w.local.offset());
        if (kind == Kind.FETCH_ADD) {
          wr.addData(w.operand);
        } else {
          wr.compareData(w.compare).swapData(w.operand);
        }
      }
      default -> throw new AssertionError(kind);
    }
    return post(q, w, wr);
  }

  private WorkRequestModel newSend(QueuePairModel q, Kind kind, boolean signaled)
      throws InterruptedException {
    makeRoom(q);
    return new WorkRequestModel(nextWrId++, kind, q, signaled, step, q.nextSendSeq++);
  }

  /** Waits (bounded) until the send queue has a free slot in the model's count. */
  private void makeRoom(QueuePairModel q) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
    boolean ended = false;
    while (q.outstandingSends() >= MAX_SEND_WR - 1) {
      if (pollAll() == 0) {
        check(System.nanoTime() < deadline, q + ": " + q.outstandingSends()
            + " send work requests never completed");
        Thread.sleep(1);
      }
      if (!ended && q.doomed() && System.nanoTime() > deadline - TimeUnit.SECONDS.toNanos(8)) {
        // Doomed and stuck (say a Read whose peer waits for nothing): end it, as a user would.
        q.doom(Fault.MODIFY_TO_ERROR, step);
        q.qp.modifyToError();
        ended = true;
      }
    }
  }

  private String post(QueuePairModel q, WorkRequestModel w, SendWorkRequest wr) {
    checker.posted(w);
    q.sends.add(w);
    q.qp.postSend(wr);
    return "wr " + w.wrId + (w.remote != null ? " -> " + w.remote : "");
  }

  private String postRecv(QueuePairModel q) throws InterruptedException {
    if (q.closed) {
      return "closed, skipped";
    }
    ReceivePool pool = q.receives;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
    int cap = pool.shared ? 200 : MAX_RECV_WR - 1;
    while (pool.unresolved() >= cap) {
      if (pollAll() == 0) {
        if (System.nanoTime() > deadline) {
          return "receive queue full, skipped";
        }
        Thread.sleep(1);
      }
    }
    WorkRequestModel r = new WorkRequestModel(nextWrId++, Kind.RECV, q, true, step, -1);
    r.local = slice(q.device, q.pdIndex, RECEIVE_LENGTH);
    RecvWorkRequest wr = new RecvWorkRequest(1).wrId(r.wrId)
        .addSge(r.local.region().mr(), r.local.offset(), RECEIVE_LENGTH);
    checker.posted(r);
    pool.posted.add(r);
    pool.available++;
    if (pool.shared) {
      srq.postRecv(wr);
    } else {
      q.qp.postRecv(wr);
    }
    return "wr " + r.wrId + " " + r.local;
  }

  /** Polls one queue; returns how many completions were checked. */
  private int poll(CompletionQueue cq) {
    int total = 0;
    int n;
    while ((n = cq.poll(batch)) > 0) {
      for (int i = 0; i < n; i++) {
        WorkCompletion wc = batch[i];
        int device = cq == cqs[0] || cq == cqs[1] || cq == cqs[2] ? 0 : 1;
        checker.completed(wc, cq, device, step);
        if (wc.status() == WcStatus.WR_FLUSH_ERR) {
          flushesPerDevice[device]++;
        }
      }
      total += n;
    }
    check(events.isEmpty(), "a connection the model thinks healthy ended: " + events);
    return total;
  }

  private int pollAll() {
    int n = 0;
    for (CompletionQueue cq : cqs) {
      n += poll(cq);
    }
    return n;
  }

  private String deregister(RegionModel r, boolean checked) {
    if (r.deregistered()) {
      return r + " already";
    }
    // Who may still use it: local work requests not resolved; peers' accesses not known to
    // have been processed (a Write completes when TCP took it, before the peer placed it).
    List<WorkRequestModel> local = new ArrayList<>();
    List<WorkRequestModel> remote = new ArrayList<>();
    for (WorkRequestModel w : checker.all()) {
      if (w.local != null && w.local.region() == r && !w.resolved()) {
        local.add(w);
      }
      boolean placementPending = !w.resolved() || (w.kind == Kind.WRITE
          || w.kind == Kind.WRITE_IMMEDIATE) && w.status != WcStatus.WR_FLUSH_ERR;
      if (w.remote != null && w.remote.region() == r && !w.confirmed && placementPending
          && w.epoch == w.qp.epoch()) {
        remote.add(w);
      }
    }
    // What the generator knows (deterministic): any use of the region in a live epoch.
    for (QueuePairModel[] pair : pairs) {
      for (QueuePairModel q : pair) {
        for (WorkRequestModel w : q.sends) {
          if (w.local != null && w.local.region() == r || w.remote != null
              && w.remote.region() == r) {
            q.generatorFaulted = true;
          }
        }
        if (!q.receives.shared) {
          for (WorkRequestModel w : q.receives.posted) {
            if (w.epoch == q.epoch() && w.local.region() == r) {
              q.generatorFaulted = true;
            }
          }
        }
      }
    }
    for (WorkRequestModel w : pairs[3][1].receives.posted) {
      if (w.local.region() == r) {
        pairs[3][1].generatorFaulted = true;
      }
    }
    // Doomed before the close: its effects (an ERROR event) may come at once.
    for (WorkRequestModel w : local) {
      QueuePairModel q = receiver(w);
      q.doom(Fault.LOCAL_DEREGISTER, step);
      if (w.kind != Kind.RECV) {
        w.sourceDeregisteredInFlight = true;
      }
    }
    for (WorkRequestModel w : remote) {
      w.qp.doom(Fault.DEAD_STAG, step);
    }
    String how = "closed";
    if (checked) {
      try {
        r.mr().closeChecked();
        how = "closeChecked succeeded";
      } catch (IllegalStateException refused) {
        check(!local.isEmpty(), "closeChecked refused " + r + " that no work request uses: "
            + refused.getMessage());
        Matcher m = WR_ID.matcher(refused.getMessage());
        int named = 0;
        while (m.find()) {
          long id = Long.parseLong(m.group(1));
          named++;
          check(local.stream().anyMatch(w -> w.wrId == id), "closeChecked named wrId " + id
              + ", which the model knows resolved or not using " + r + ": "
              + refused.getMessage());
        }
        check(named > 0, "closeChecked refused without naming a work request: "
            + refused.getMessage());
        check(r.mr().isValid(), "a refused closeChecked changed the region");
        how = "closeChecked refused (" + named + " named), then closed";
        r.mr().close();
      }
    } else {
      r.mr().close();
    }
    r.deregistered(true);
    return how + ", in use by " + local.size() + " local and " + remote.size() + " remote";
  }

  /** The queue pair a receive belongs to now (a shared queue's: the pair's server end). */
  private QueuePairModel receiver(WorkRequestModel r) {
    return r.qp.receives.shared ? pairs[3][1] : r.qp;
  }

  private String deadStagAccess(QueuePairModel q, Op op) throws Exception {
    RegionModel dead = null;
    for (RegionModel r : regions) {
      if (r.deregistered() && r.device() == q.peer.device && r.pdIndex() == q.peer.pdIndex) {
        dead = r;
      }
    }
    if (dead == null || q.closed) {
      return "no dead region, skipped";
    }
    WorkRequestModel w = newSend(q, op.kind(), true);
    w.deliberateFault = true;
    w.local = slice(q.device, q.pdIndex, op.length());
    w.remote = new Slice(dead, 0, op.length()); // never a slice of it: its canary stays
    w.payload = WorkRequestModel.pattern(w.wrId, op.length());
    if (op.kind() == Kind.WRITE) {
      w.local.region().write(w.local, w.payload);
    }
    SendWorkRequest wr = new SendWorkRequest(1).wrId(w.wrId).opcode(op.kind().opcode)
        .flags(SendFlags.SIGNALED).addSge(w.local.region().mr(), w.local.offset(), op.length())
        .remote(dead.mr().stag(), dead.mr().address());
    q.doom(Fault.DEAD_STAG, step);
    q.generatorFaulted = true;
    return post(q, w, wr);
  }

  private String sendWithoutReceive(QueuePairModel q) throws Exception {
    if (q.closed || q.peer.receives.available > 0) {
      return "receives posted, skipped";
    }
    WorkRequestModel w = newSend(q, Kind.SEND, true);
    w.deliberateFault = true;
    w.local = slice(q.device, q.pdIndex, 64);
    w.payload = WorkRequestModel.pattern(w.wrId, 64);
    w.local.region().write(w.local, w.payload);
    q.peer.receives.available--;
    q.doom(Fault.NO_RECEIVE, step);
    q.generatorFaulted = true;
    return post(q, w, new SendWorkRequest(1).wrId(w.wrId).opcode(Kind.SEND.opcode)
        .flags(SendFlags.SIGNALED).addSge(w.local.region().mr(), w.local.offset(), 64));
  }

  private String fault(QueuePairModel q, Fault fault) {
    if (q.closed) {
      return "closed, skipped";
    }
    q.doom(fault, step);
    q.generatorFaulted = true;
    switch (fault) {
      case MODIFY_TO_ERROR -> q.qp.modifyToError();
      case DISCONNECT -> {
        RdmaConnection c = q.qp.connection();
        if (c != null) {
          c.disconnect();
        }
      }
      case CLOSE -> {
        q.qp.close();
        q.closed = true;
      }
      default -> throw new AssertionError(fault);
    }
    return q.toString();
  }

  /** A RST to both ends of the relayed pair's connection. */
  private String abruptClose(QueuePairModel a) {
    if (a.generatorFaulted || a.peer.generatorFaulted) {
      return "already broken, skipped";
    }
    a.doom(Fault.LOST, step);
    a.peer.faults.add(Fault.LOST);
    a.generatorFaulted = true;
    check(link.resetNewest(), "no relayed connection to reset");
    return a.toString();
  }

  /**
   * Ends pair {@code p}'s connection for good, accounts for every work request of it, and
   * connects it anew: both queue pairs reset, or replaced by new ones.
   */
  private String revive(int p, boolean reset) throws Exception {
    QueuePairModel a = pairs[p][0];
    QueuePairModel b = pairs[p][1];
    end(p, reset);
    if (reset) {
      a.newEpoch(a.qp);
      b.newEpoch(b.qp);
    } else {
      a.newEpoch(createQueuePair(a));
      b.newEpoch(createQueuePair(b));
    }
    a.receives.available = 0;
    b.receives.available = b.receives.shared ? b.receives.unresolved() : 0;
    for (WorkRequestModel r : b.receives.posted) {
      if (b.receives.shared && !r.resolved() && r.local.region().deregistered()) {
        // Still in the shared queue over deregistered memory: the next Send fails with it.
        b.doom(Fault.LOCAL_DEREGISTER, step);
        b.generatorFaulted = true;
      }
    }
    connect(p);
    return a + " / " + b;
  }

  /** Ends pair {@code p}: both ends in ERROR, then reset or closed; checks its accounts. */
  private void end(int p, boolean reset) throws Exception {
    QueuePairModel a = pairs[p][0];
    QueuePairModel b = pairs[p][1];
    if (!a.closed) {
      a.doom(Fault.MODIFY_TO_ERROR, step);
      a.qp.modifyToError();
    } else if (!b.closed) {
      b.doom(Fault.MODIFY_TO_ERROR, step);
      b.qp.modifyToError();
    }
    for (QueuePairModel q : pairs[p]) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
      while (!q.closed && q.qp.state() != QpState.ERROR) {
        check(System.nanoTime() < deadline, q + " never reached ERROR after its peer did");
        Thread.sleep(1);
      }
    }
    for (QueuePairModel q : pairs[p]) {
      if (reset && !q.closed) {
        q.qp.reset();
      } else if (!q.closed) {
        q.qp.close();
        q.closed = true;
      }
    }
    pollAll(); // reset() and close() return once every completion of theirs was added
    for (QueuePairModel q : pairs[p]) {
      for (WorkRequestModel w : q.sends) {
        check(w.resolved() || !w.signaled, "no completion for " + w + " after " + q.name()
            + (reset ? " was reset" : " was closed"));
        if (!w.resolved()) {
          w.retired = true; // unsignaled and never failed: it succeeded
        }
      }
      if (!q.receives.shared) {
        for (WorkRequestModel r : q.receives.posted) {
          check(r.resolved(), "no completion for receive " + r + " after " + q.name()
              + (reset ? " was reset" : " was closed"));
        }
      }
    }
    if (b.receives.shared) {
      int unresolved = b.receives.unresolved();
      check(srq.outstanding() == unresolved, "the shared receive queue holds "
          + srq.outstanding() + " receives, the model " + unresolved + " not completed");
    }
  }

  /** Every healthy pair: a Read each way fences its Writes; waits for every send completion. */
  private String quiesce() throws Exception {
    List<WorkRequestModel> fences = new ArrayList<>();
    for (QueuePairModel[] pair : pairs) {
      for (QueuePairModel q : pair) {
        // Chosen as the generator would (not by the doom, which depends on timing), so that
        // the fences take the same slices in every run of a seed.
        if (!q.generatorFaulted && !q.peer.generatorFaulted && !q.closed) {
          postSend(q, new Op(Type.POST_SEND, q.pair, q.device, Kind.READ, 8, true, 0, false));
          fences.add(q.sends.get(q.sends.size() - 1));
        }
      }
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
    for (WorkRequestModel f : fences) {
      while (!f.resolved()) {
        if (pollAll() == 0) {
          check(System.nanoTime() < deadline, "fence " + f + " never completed");
          Thread.sleep(1);
        }
      }
    }
    for (QueuePairModel[] pair : pairs) {
      for (QueuePairModel q : pair) {
        if (!q.doomed()) {
          check(q.qp.state() == QpState.RTS, q + " is not RTS though nothing ended it");
          // Fenced (a signaled Read behind everything): nothing before it may be outstanding.
          check(q.generatorFaulted || q.peer.generatorFaulted || q.outstandingSends() == 0,
              q + " still has send work requests outstanding");
        }
      }
    }
    for (int d = 0; d < 2; d++) {
      for (int p = 0; p < 2; p++) {
        int model = 0;
        for (RegionModel r : regions) {
          if (r.device() == d && r.pdIndex() == p && !r.deregistered()) {
            model++;
          }
        }
        check(pds[d][p].regionCount() == model, "protection domain " + "AB".charAt(d) + p
            + " counts " + pds[d][p].regionCount() + " regions, the model " + model);
      }
    }
    return fences.size() + " fences";
  }

  // ---- the end ----

  private void finish() throws Exception {
    quiesce();
    checker.checkMemory(regions);
    for (int p = 0; p < PAIRS; p++) {
      if (!pairs[p][0].doomed()) {
        pairs[p][0].doom(Fault.CLOSE, step);
      }
      end(p, false);
    }
    List<WorkRequestModel> dropped = new ArrayList<>();
    for (WorkRequestModel r : pairs[3][1].receives.posted) {
      if (!r.resolved()) {
        dropped.add(r);
      }
    }
    srq.close(); // drops what is still posted, without completions
    dropped.forEach(r -> r.retired = true);
    for (CompletionQueue cq : cqs) {
      check(cq.poll(batch) == 0, "a completion after every queue pair was closed");
    }
    for (WorkRequestModel w : checker.all()) {
      check(w.resolved(), "never completed: " + w);
      check(w.completions <= 1, "completed " + w.completions + " times: " + w);
    }
    CountersSnapshot counters = new CountersSnapshot();
    for (int d = 0; d < 2; d++) {
      long flushed = devices[d].counters(counters).flushedWorkRequests();
      check(flushed == flushesPerDevice[d], "device " + "AB".charAt(d) + " counted " + flushed
          + " flushed work requests, " + flushesPerDevice[d] + " were polled");
    }
    for (CompletionQueue cq : cqs) {
      cq.close();
    }
    for (RegionModel r : regions) {
      if (!r.deregistered()) {
        r.mr().closeChecked(); // nothing is outstanding any more: must not refuse
        r.deregistered(true);
      }
    }
    for (ProtectionDomain[] perDevice : pds) {
      for (ProtectionDomain pd : perDevice) {
        check(pd.regionCount() == 0, pd + " still counts regions");
        pd.close();
      }
    }
    listener.close();
    link.close();
    devices[0].close();
    devices[1].close();
    for (RegionModel r : regions) {
      int at = r.firstNotCanary();
      check(at < 0, "octet " + at + " of " + r + " was written after it was deregistered");
      check(r.memory().refCnt() == 1, r + ": the stack still holds " + (r.memory().refCnt() - 1)
          + " reference(s) to its memory after everything was closed");
    }
  }

  @Override
  public void close() throws java.io.IOException {
    if (link != null) {
      link.close();
    }
    for (RdmaDevice d : devices) {
      if (d != null) {
        d.close();
      }
    }
    for (RegionModel r : regions) {
      if (r.memory().refCnt() > 0) {
        r.memory().release(r.memory().refCnt());
      }
    }
  }
}
