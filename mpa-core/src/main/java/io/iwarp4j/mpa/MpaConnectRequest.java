package io.iwarp4j.mpa;

import io.iwarp4j.wire.EnhancedConnectionData;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A well-formed MPA Request waiting for the Responder's ULP to accept or reject it
 * (RFC 5044 §7.1.2 rule 2, rule 6; RFC 6581 §9.1). {@link MpaResponderHandler} fires it as a
 * user event towards the tail of the pipeline; a handler after it inspects {@link #peer()} and
 * calls exactly one of {@code accept} or {@code reject}, from any thread, exactly once (a second
 * call throws {@link IllegalStateException}). The Reply is sent on the channel's event loop.
 *
 * <p>The Responder's request timeout keeps running while the ULP decides: a request that is
 * never answered closes the connection when it expires.
 */
public final class MpaConnectRequest {
  /** What the Responder does with the decision (implemented by the handler). */
  interface Decider {
    void decide(int ird, int ord, byte[] privateData, boolean reject, boolean sendFirst);
  }

  private final Decider decider;
  private final MpaPeerParameters peer;
  private final SocketAddress remoteAddress;
  private final MpaSettings settings;
  private final AtomicBoolean decided = new AtomicBoolean();

  MpaConnectRequest(Decider decider, MpaPeerParameters peer, SocketAddress remoteAddress,
      MpaSettings settings) {
    this.decider = decider;
    this.peer = peer;
    this.remoteAddress = remoteAddress;
    this.settings = settings;
  }

  /**
   * What the Initiator's Request said: revision, bits, IRD/ORD, RTR flags, private data.
   *
   * @return what the Initiator's Request said: revision, bits, IRD/ORD, RTR flags, private data
   */
  public MpaPeerParameters peer() {
    return peer;
  }

  /**
   * The Initiator's address (null when the transport has none).
   *
   * @return the Initiator's address (null when the transport has none)
   */
  public SocketAddress remoteAddress() {
    return remoteAddress;
  }

  /**
   * Whether accept or reject has been called.
   *
   * @return whether accept or reject has been called
   */
  public boolean isDecided() {
    return decided.get();
  }

  /** Accepts with the Responder settings' IRD, ORD and private data. */
  public void accept() {
    accept(settings.ird(), settings.ord(), settings.privateData());
  }

  /**
   * Accepts: the Reply (R=0) carries the negotiated IRD/ORD (see {@link MpaNegotiation#reply})
   * and {@code privateData}.
   *
   * @param ird the inbound Read depth this end can support, 0..0x3FFF
   * @param ord the outbound Read depth this end wants, 0..0x3FFF
   * @param privateData ULP private data for the Reply: at most 508 octets when the Request was
   *     enhanced, 512 otherwise (Linux peers refuse more than 256)
   * @throws IllegalArgumentException when a value is out of range (the request stays undecided)
   * @throws IllegalStateException when already decided
   */
  public void accept(int ird, int ord, byte[] privateData) {
    decide(ird, ord, privateData, false, settings.responderSendsFirst());
  }

  /**
   * Accepts like {@link #accept(int, int, byte[])}, choosing for this connection whether a
   * client-server Responder may send right after its Reply. {@code true} deliberately departs
   * from RFC 5044 §7.1.2 rule 4; see {@link MpaSettings.Builder#responderSendsFirst(boolean)}
   * for when that is safe. Ignored in the peer-to-peer model (the RTR comes first there).
   *
   * @param ird the inbound Read depth this end can support, 0..0x3FFF
   * @param ord the outbound Read depth this end wants, 0..0x3FFF
   * @param privateData ULP private data for the Reply (see {@link #accept(int, int, byte[])})
   * @param responderSendsFirst true to send before the Initiator's first FPDU (not conformant)
   * @throws IllegalArgumentException when a value is out of range (the request stays undecided)
   * @throws IllegalStateException when already decided
   */
  public void accept(int ird, int ord, byte[] privateData, boolean responderSendsFirst) {
    decide(ird, ord, privateData, false, responderSendsFirst);
  }

  /**
   * Rejects (R=1) with the settings' IRD/ORD; MPA exits and leaves TCP open to the ULP.
   *
   * @param privateData the private data
   */
  public void reject(byte[] privateData) {
    reject(settings.ird(), settings.ord(), privateData);
  }

  /**
   * Rejects (R=1). With an enhanced Request the Reply still carries IRD/ORD, so a ULP that
   * rejects because the Initiator's IRD is too small can state the ORD it needs
   * (RFC 6581 §9.1). MPA exits and leaves the TCP connection open to the ULP.
   *
   * @param ird the IRD to state
   * @param ord the ORD to state
   * @param privateData the private data
   * @throws IllegalArgumentException when a value is out of range (the request stays undecided)
   * @throws IllegalStateException when already decided
   */
  public void reject(int ird, int ord, byte[] privateData) {
    decide(ird, ord, privateData, true, false);
  }

  private void decide(int ird, int ord, byte[] privateData, boolean reject, boolean sendFirst) {
    Objects.requireNonNull(privateData, "privateData");
    checkDepth("IRD", ird);
    checkDepth("ORD", ord);
    int max = MpaSettings.MAX_PRIVATE_DATA
        - (peer.enhanced() ? EnhancedConnectionData.LENGTH : 0);
    if (privateData.length > max) {
      throw new IllegalArgumentException("reply private data of " + privateData.length
          + " octets does not fit: at most " + max + " octets for this "
          + (peer.enhanced() ? "enhanced" : "unenhanced") + " Reply");
    }
    if (!decided.compareAndSet(false, true)) {
      throw new IllegalStateException("this MPA connect request was already accepted or rejected");
    }
    decider.decide(ird, ord, privateData.clone(), reject, sendFirst);
  }

  private static void checkDepth(String what, int value) {
    if (value < 0 || value > MpaSettings.IRD_ORD_NO_NEGOTIATION) {
      throw new IllegalArgumentException(what + " must be 0..0x3FFF (14 bits), not " + value);
    }
  }

  @Override
  public String toString() {
    return "MpaConnectRequest{from=" + remoteAddress + ", " + peer + ", decided=" + decided.get()
        + "}";
  }
}
