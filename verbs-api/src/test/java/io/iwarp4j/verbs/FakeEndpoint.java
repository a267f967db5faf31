package io.iwarp4j.verbs;

import io.iwarp4j.ddp.Gather;
import io.iwarp4j.verbs.engine.EndpointPort;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;

/**
 * An {@link EndpointPort} that records what the queue pair issues, with an ORD limit and a
 * writability switch. Records into preallocated arrays, so it allocates nothing.
 */
final class FakeEndpoint implements EndpointPort {
  static final char WRITE = 'W';
  static final char READ = 'R';
  static final char SEND = 'S';
  static final char ATOMIC = 'A';
  static final char IMMEDIATE = 'I';
  static final char WRITE_IMMEDIATE = 'J';

  boolean rfc7306 = true;
  AtomicOpcode lastAtomicOpcode;
  long lastAtomicData;
  long lastAtomicMask;
  long lastCompareData;
  long lastCompareMask;
  int lastResultStag;
  long lastResultTo;
  long lastImmediate;
  boolean lastSolicited;

  boolean writable = true;
  boolean sendAllowed = true;
  int ord = 16;
  int readsOutstanding;

  final long[] tokens = new long[1 << 16];
  final char[] kinds = new char[1 << 16];
  final long[] lengths = new long[1 << 16];
  int issued;
  RdmapOpcode lastSendOpcode;
  int lastInvalidateStag;
  int lastRemoteStag;
  long lastRemoteTo;
  int lastSinkStag;
  long lastSinkTo;

  final long[] receiveIds = new long[1 << 16];
  final int[] receivePieceCounts = new int[1 << 16];
  ByteBuf lastFirstPiece;
  int receives;

  int flushes;
  int closes;
  int aborts;
  int lastAbortType = -1;
  int lastAbortCode = -1;
  int closeNows;
  RuntimeException failNextIssue;

  /** When set, the payload of each Write and Send is copied into {@link #lastPayload}. */
  boolean capturePayload;
  final byte[] lastPayload = new byte[4096];
  int lastPayloadLength;
  /**
   * When not null, a retained slice of every payload piece is kept here, as a transport that has
   * not written them yet would (the test releases them).
   */
  java.util.List<ByteBuf> heldSlices;

  @Override
  public boolean canSend() {
    return sendAllowed;
  }

  @Override
  public boolean isWritable() {
    return writable;
  }

  @Override
  public boolean canIssueRead() {
    return readsOutstanding < ord;
  }

  @Override
  public void write(long token, int remoteStag, long remoteTo, Gather payload) {
    maybeFail();
    lastRemoteStag = remoteStag;
    lastRemoteTo = remoteTo;
    capture(payload);
    record(WRITE, token, payload.totalLength());
  }

  @Override
  public boolean rfc7306Enabled() {
    return rfc7306;
  }

  @Override
  public Object streamScope() {
    return this; // one fake connection, one stream
  }

  @Override
  public void atomic(long token, AtomicOpcode op, int remoteStag, long remoteTo,
      long addOrSwapData, long addOrSwapMask, long compareData, long compareMask, int resultStag,
      long resultTo) {
    maybeFail();
    if (readsOutstanding >= ord) {
      throw new IllegalStateException("ORD " + ord + " Reads and Atomics outstanding");
    }
    readsOutstanding++;
    lastAtomicOpcode = op;
    lastRemoteStag = remoteStag;
    lastRemoteTo = remoteTo;
    lastAtomicData = addOrSwapData;
    lastAtomicMask = addOrSwapMask;
    lastCompareData = compareData;
    lastCompareMask = compareMask;
    lastResultStag = resultStag;
    lastResultTo = resultTo;
    record(ATOMIC, token, Long.BYTES);
  }

  @Override
  public void immediate(long token, boolean solicited, long data) {
    maybeFail();
    lastImmediate = data;
    lastSolicited = solicited;
    record(IMMEDIATE, token, 0);
  }

  @Override
  public void writeWithImmediate(long token, int remoteStag, long remoteTo, Gather payload,
      boolean solicited, long data) {
    maybeFail();
    lastRemoteStag = remoteStag;
    lastRemoteTo = remoteTo;
    lastImmediate = data;
    lastSolicited = solicited;
    capture(payload);
    record(WRITE_IMMEDIATE, token, payload.totalLength());
  }

  @Override
  public void read(long token, int sinkStag, long sinkTo, int length, int srcStag, long srcTo) {
    maybeFail();
    if (readsOutstanding >= ord) {
      throw new IllegalStateException("ORD " + ord + " Reads outstanding");
    }
    readsOutstanding++;
    lastSinkStag = sinkStag;
    lastSinkTo = sinkTo;
    lastRemoteStag = srcStag;
    lastRemoteTo = srcTo;
    record(READ, token, Integer.toUnsignedLong(length));
  }

  @Override
  public void send(long token, RdmapOpcode opcode, int invalidateStag, Gather payload) {
    maybeFail();
    lastSendOpcode = opcode;
    lastInvalidateStag = invalidateStag;
    capture(payload);
    record(SEND, token, payload.totalLength());
  }

  private void maybeFail() {
    RuntimeException e = failNextIssue;
    if (e != null) {
      failNextIssue = null;
      throw e;
    }
  }

  private void capture(Gather payload) {
    if (capturePayload) {
      int at = 0;
      for (int i = 0; i < payload.size(); i++) {
        payload.buffer(i).getBytes(payload.index(i), lastPayload, at, payload.length(i));
        at += payload.length(i);
      }
      lastPayloadLength = at;
    }
    if (heldSlices != null) {
      for (int i = 0; i < payload.size(); i++) {
        heldSlices.add(payload.buffer(i).retainedSlice(payload.index(i), payload.length(i)));
      }
    }
  }

  /** When not null, run after each work request is recorded (inside the issuing call). */
  Runnable afterIssue;

  private void record(char kind, long token, long length) {
    kinds[issued] = kind;
    tokens[issued] = token;
    lengths[issued] = length;
    issued++;
    if (afterIssue != null) {
      afterIssue.run();
    }
  }

  @Override
  public void postReceive(long bufferId, ByteBuf[] pieces, int count) {
    receiveIds[receives] = bufferId;
    receivePieceCounts[receives] = count;
    lastFirstPiece = count > 0 ? pieces[0] : null;
    receives++;
  }

  @Override
  public void flush() {
    flushes++;
  }

  @Override
  public void close() {
    closes++;
  }

  @Override
  public void abort(int errorType, int errorCode) {
    aborts++;
    lastAbortType = errorType;
    lastAbortCode = errorCode;
  }

  @Override
  public void closeNow() {
    closeNows++;
  }

  /** The endpoint side of a Read completing: frees an ORD slot. */
  void readDone() {
    readsOutstanding--;
  }

  /** The kinds issued so far, e.g. "RWS". */
  String issuedKinds() {
    return new String(kinds, 0, issued);
  }
}
