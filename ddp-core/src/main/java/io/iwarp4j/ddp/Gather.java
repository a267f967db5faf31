package io.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;

/**
 * The payload of one outgoing DDP message as DDP reads it: an ordered list of (buffer, index,
 * length) pieces, read in place by {@link DdpSegmenter} (and through it the framer) while the
 * message is cut, never copied into a list of DDP's own.
 *
 * <p>Whoever holds the pieces implements this view over its own representation: DDP's callers
 * and tests use {@link GatherList}; the verbs engine's send-queue entry reads its work request's
 * scatter/gather list in place. An abstract class rather than an interface, and at most these
 * two subclasses, so that the segmenter's per-piece calls stay monomorphic or bimorphic (inlined
 * by the JIT) on the data path.
 *
 * <p>A piece's buffer is read from {@code index} for {@code length} octets; its reader and
 * writer indexes are ignored and never moved. The view does not own the buffers: the caller keeps
 * them alive (and registered memory pinned) until the send that reads the view returns; the send
 * takes its own references. Every method may be called several times per piece and must return
 * the same answer each time during one send, without throwing for a valid piece index.
 */
public abstract class Gather {

  /** For subclasses. */
  protected Gather() {}

  /**
   * The number of pieces.
   *
   * @return the number of pieces
   */
  public abstract int size();

  /**
   * The sum of the pieces' lengths: the message length this payload contributes.
   *
   * @return the sum of the pieces' lengths
   */
  public abstract long totalLength();

  /**
   * The buffer of piece {@code i}.
   *
   * @param i the piece index, from 0
   * @return the buffer of piece {@code i}
   */
  public abstract ByteBuf buffer(int i);

  /**
   * The absolute index of piece {@code i}'s first octet in its buffer.
   *
   * @param i the piece index, from 0
   * @return the absolute start index of piece {@code i} in its buffer
   */
  public abstract int index(int i);

  /**
   * The length of piece {@code i}.
   *
   * @param i the piece index, from 0
   * @return the length of piece {@code i}
   */
  public abstract int length(int i);
}
