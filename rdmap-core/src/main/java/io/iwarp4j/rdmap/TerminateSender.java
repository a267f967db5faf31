package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.DdpError;
import io.iwarp4j.ddp.DdpStream;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Terminate production for an {@link RdmapEndpoint} (RFC 5040 §7): ends the stream with exactly
 * one Terminate for the first error found, RDMAP's (Layer 0), DDP's (Layer 1) or MPA's (Layer 2),
 * echoing the offending headers; withheld when nothing may be sent yet (RFC 5044 §7.1.2 rule 4);
 * counted and reported to the owner. Confined to the event loop.
 */
final class TerminateSender {
  private static final Logger log = LoggerFactory.getLogger(RdmapEndpoint.class);

  private final RdmapTeardown teardown;
  private final DdpStream stream;
  private final Channel channel;
  private final RdmapCounters counters;
  private final RdmapEndpointListener listener;

  TerminateSender(RdmapTeardown teardown, DdpStream stream, RdmapCounters counters,
      RdmapEndpointListener listener) {
    this.teardown = teardown;
    this.stream = stream;
    this.channel = stream.channel();
    this.counters = counters;
    this.listener = listener;
  }

  /** Ends the stream with an RDMAP-layer Terminate echoing {@code failed} (may be null). */
  void terminate(RdmapError error, TerminatedSegment failed) {
    terminate(RdmapError.LAYER, error.errorType(), error.code(), failed);
  }

  /** Ends the stream with a DDP-layer Terminate for an error RDMAP found (IRD, Read Response). */
  void terminate(DdpError error, TerminatedSegment failed) {
    terminate(DdpError.LAYER, error.errorType(), error.code(), failed);
  }

  /** DDP reported an error: its Terminate, with the header DDP kept. */
  void ddpError(DdpError error) {
    if (teardown.isEnded()) {
      return;
    }
    boolean sendable = stream.sendEnabled();
    teardown.end((sendable ? "Terminate sent" : WITHHELD) + " for DDP error " + error + " (1/"
        + error.errorType() + "/0x" + Integer.toHexString(error.code()) + ")");
    try {
      stream.terminateForError();
      if (sendable) {
        countTerminateSent(DdpError.LAYER, error.errorType(), error.code());
      }
    } catch (RuntimeException e) {
      log.debug("{} the DDP Terminate could not be sent: {}", channel, e.toString());
      channel.close();
    }
    reportTerminate(sendable, DdpError.LAYER, error.errorType(), error.code());
  }

  /**
   * A Responder may send nothing before the Initiator's first intact FPDU (RFC 5044 §7.1.2 rule
   * 4): when that FPDU fails its CRC or Marker check, the stream closes without a Terminate.
   */
  private static final String WITHHELD = "closed without a Terminate (none may be sent before"
      + " the peer's first intact FPDU, RFC 5044 §7.1.2 rule 4)";

  private void reportTerminate(boolean sent, int layer, int errorType, int errorCode) {
    if (sent) {
      listener.onTerminateSent(layer, errorType, errorCode);
    } else {
      listener.onTerminateWithheld(layer, errorType, errorCode);
    }
  }

  void terminate(int layer, int errorType, int errorCode, TerminatedSegment failed) {
    if (teardown.isEnded()) {
      return; // RFC 5040 §7.1 rule 4: the first error is the one reported
    }
    boolean sendable = stream.sendEnabled();
    teardown.end((sendable ? "Terminate sent" : WITHHELD) + " (" + layer + "/" + errorType + "/0x"
        + Integer.toHexString(errorCode) + ")");
    ByteBuf ddpHeader = failed == null ? null : failed.ddpHeader();
    try {
      stream.terminate(layer, errorType, errorCode, ddpHeader,
          ddpHeader == null ? 0 : failed.segmentLength(),
          ddpHeader == null ? null : failed.rdmaHeader());
      if (sendable) {
        countTerminateSent(layer, errorType, errorCode);
      }
    } catch (RuntimeException e) {
      log.debug("{} the Terminate could not be sent: {}", channel, e.toString());
      channel.close();
    }
    reportTerminate(sendable, layer, errorType, errorCode);
  }

  private void countTerminateSent(int layer, int errorType, int errorCode) {
    int octets = stream.sentTerminateLength();
    if (octets > 0) {
      counters.terminateSent(layer, errorType, errorCode, octets);
    }
  }
}
