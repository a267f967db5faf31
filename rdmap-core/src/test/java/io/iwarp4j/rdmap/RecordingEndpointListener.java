package io.iwarp4j.rdmap;

import io.iwarp4j.wire.RdmapOpcode;
import java.util.ArrayList;
import java.util.List;

/** Records what an {@link RdmapEndpoint} reports, as comparable records, in order. */
final class RecordingEndpointListener implements RdmapEndpointListener {
  /** A Write or Send completed. */
  record SendComplete(long token) {
  }

  /** A Read completed. */
  record ReadComplete(long token, long length) {
  }

  /** A Send-type message was delivered. */
  record Receive(long bufferId, RdmapOpcode opcode, int length, int invalidatedStag) {
  }

  /** An Immediate Data message was delivered. */
  record Immediate(long bufferId, RdmapOpcode opcode, long data) {
  }

  /** This end sent a Terminate. */
  record TerminateSent(int layer, int errorType, int errorCode) {
  }

  /** The peer sent a Terminate. */
  record TerminateReceived(int layer, int errorType, int errorCode) {
  }

  /** The connection ended without a Terminate. */
  record Disconnected(boolean graceful) {
  }

  /** Local memory a work request needed was deregistered while it was in use. */
  record LocalProtectionError(long id, boolean receive) {
  }

  /** Every event, in order. */
  final List<Object> events = new ArrayList<>();
  /** How many batches of completions ended ({@code onCompletionsReported}). */
  int completionBatches;
  /** Set to run something inside the next onSendComplete (re-entrancy tests). */
  Runnable onNextSendComplete;
  /** Set to make onReceive throw it (an owner bug). */
  RuntimeException throwOnReceive;

  @Override
  public void onSendComplete(long token) {
    events.add(new SendComplete(token));
    Runnable r = onNextSendComplete;
    if (r != null) {
      onNextSendComplete = null;
      r.run();
    }
  }

  @Override
  public void onReadComplete(long token, long length) {
    events.add(new ReadComplete(token, length));
  }

  @Override
  public void onReceive(long bufferId, RdmapOpcode opcode, int length, int invalidatedStag) {
    events.add(new Receive(bufferId, opcode, length, invalidatedStag));
    if (throwOnReceive != null) {
      throw throwOnReceive;
    }
  }

  @Override
  public void onImmediateData(long bufferId, RdmapOpcode opcode, long data) {
    events.add(new Immediate(bufferId, opcode, data));
  }

  @Override
  public void onTerminateSent(int layer, int errorType, int errorCode) {
    events.add(new TerminateSent(layer, errorType, errorCode));
  }

  @Override
  public void onTerminateReceived(int layer, int errorType, int errorCode) {
    events.add(new TerminateReceived(layer, errorType, errorCode));
  }

  @Override
  public void onDisconnected(boolean graceful) {
    events.add(new Disconnected(graceful));
  }

  @Override
  public void onLocalProtectionError(long id, boolean receive) {
    events.add(new LocalProtectionError(id, receive));
  }

  /** The end events (Terminate sent or received, disconnected) recorded. */
  List<Object> endEvents() {
    List<Object> out = new ArrayList<>();
    for (Object e : events) {
      if (e instanceof TerminateSent || e instanceof TerminateReceived
          || e instanceof Disconnected) {
        out.add(e);
      }
    }
    return out;
  }

  /** The events of one kind, in order. */
  <T> List<T> of(Class<T> kind) {
    List<T> out = new ArrayList<>();
    for (Object e : events) {
      if (kind.isInstance(e)) {
        out.add(kind.cast(e));
      }
    }
    return out;
  }

  @Override
  public void onCompletionsReported() {
    completionBatches++;
  }
}
