package io.iwarp4j.testkit;

import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;

/**
 * Assertions on one work completion that read like the domain; each returns this assertion so
 * they chain, and each failure names the whole completion. {@link Completions} hands them out.
 */
public final class CompletionAssert {
  private final WorkCompletion wc;

  CompletionAssert(WorkCompletion wc) {
    this.wc = wc;
  }

  /**
   * The completion asserted on (a copy, owned by this assertion).
   *
   * @return the completion
   */
  public WorkCompletion completion() {
    return wc;
  }

  /**
   * Asserts the status.
   *
   * @param status the expected status
   * @return this
   */
  public CompletionAssert hasStatus(WcStatus status) {
    return check(wc.status() == status, "status " + status);
  }

  /**
   * Asserts {@link WcStatus#SUCCESS}.
   *
   * @return this
   */
  public CompletionAssert isSuccess() {
    return hasStatus(WcStatus.SUCCESS);
  }

  /**
   * Asserts {@link WcStatus#WR_FLUSH_ERR}: the work request was flushed, not executed.
   *
   * @return this
   */
  public CompletionAssert isFlushed() {
    return hasStatus(WcStatus.WR_FLUSH_ERR);
  }

  /**
   * Asserts the opcode.
   *
   * @param opcode the expected opcode
   * @return this
   */
  public CompletionAssert hasOpcode(WcOpcode opcode) {
    return check(wc.opcode() == opcode, "opcode " + opcode);
  }

  /**
   * Asserts the work request id.
   *
   * @param wrId the expected id
   * @return this
   */
  public CompletionAssert hasWrId(long wrId) {
    return check(wc.wrId() == wrId, "wrId " + wrId);
  }

  /**
   * Asserts the number of octets transferred.
   *
   * @param octets the expected byte length
   * @return this
   */
  public CompletionAssert hasByteLength(long octets) {
    return check(wc.byteLen() == octets, "byteLen " + octets);
  }

  /**
   * Asserts that the completion carries immediate data of this value.
   *
   * @param immData the expected immediate data
   * @return this
   */
  public CompletionAssert hasImmediateData(long immData) {
    return check(wc.hasImmData() && wc.immData() == immData, "immediate data " + immData);
  }

  /**
   * Asserts that the completion carries no immediate data.
   *
   * @return this
   */
  public CompletionAssert hasNoImmediateData() {
    return check(!wc.hasImmData(), "no immediate data");
  }

  /**
   * Asserts that a receive completion reports the Solicited Event flag.
   *
   * @param solicited the expected flag
   * @return this
   */
  public CompletionAssert isSolicited(boolean solicited) {
    return check(wc.solicited() == solicited, "solicited " + solicited);
  }

  /**
   * Asserts that a receive completion reports this STag as invalidated by the peer.
   *
   * @param stag the expected STag
   * @return this
   */
  public CompletionAssert hasInvalidatedStag(int stag) {
    return check(wc.hasInvalidatedStag() && wc.invalidatedStag() == stag,
        "invalidated STag 0x" + Integer.toHexString(stag));
  }

  private CompletionAssert check(boolean ok, String expected) {
    if (!ok) {
      throw new AssertionError("expected " + expected + " in " + wc);
    }
    return this;
  }

  @Override
  public String toString() {
    return wc.toString();
  }
}
