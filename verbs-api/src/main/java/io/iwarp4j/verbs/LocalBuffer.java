package io.iwarp4j.verbs;

import io.netty.buffer.ByteBuf;

/**
 * Local memory a work request may read from or place into: a registered memory region as
 * the verbs API sees it.
 *
 * <p>A scatter/gather entry names a {@code LocalBuffer}, an offset and a length. Offsets count
 * from the first octet of the buffer, which is {@code buffer()} index 0; valid octets are
 * {@code 0 .. length() - 1}. The protocol engine checks at execution time that {@link #stag()}
 * still names a valid registration with the needed access rights; a failed check completes the
 * work request with {@link WcStatus#LOC_PROT_ERR}.
 */
public interface LocalBuffer {

  /**
   * The memory itself.
   *
   * @return the buffer holding this memory; index 0 is the buffer's first octet
   */
  ByteBuf buffer();

  /**
   * The size of this memory in octets.
   *
   * @return the number of octets, at least 0
   */
  long length();

  /**
   * The local STag of the registration that covers this memory (the verbs {@code lkey}).
   *
   * @return the STag
   */
  int stag();
}
