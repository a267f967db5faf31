package io.iwarp4j.ddp;

import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagCheck;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.wire.DdpControl;
import io.iwarp4j.wire.OpcodeTable;
import io.iwarp4j.wire.RdmapControl;
import io.iwarp4j.wire.TaggedHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Data Sink's tagged receive path of one {@link DdpStream} (RFC 5041 §5.2, §7.1): validates
 * each tagged segment, places its payload into the region its STag names and delivers each
 * message on its L=1 segment. In this order, all before anything of the segment is placed:
 * <ol>
 *   <li>DV = 1, else {@link DdpError#TAGGED_INVALID_DDP_VERSION} (0x04), on every segment;
 *   <li>a whole 14-octet header, else {@link DdpError#LOCAL_CATASTROPHIC} (no DDP code fits);
 *   <li>the upper layer's own checks ({@link DdpStreamListener#acceptTagged}); then the access
 *       right placement needs, from the opcode's row of {@link OpcodeTable}: {@code REMOTE_WRITE}
 *       for an RDMA Write, {@code LOCAL_WRITE} for a Read Response. An upper layer that accepts
 *       an opcode the table does not let travel tagged has a bug: the stream stops and throws
 *       {@link IllegalStateException};
 *   <li>for a non-zero payload only (RFC 5041 §5.2: a zero-length segment's STag and TO are not
 *       checked), {@link StagTable#checkAndPlace}: STag valid (0x00), associated with this
 *       stream's Protection Domain (0x02), access right (no DDP code: reported as 0x00, see
 *       {@link DdpError#forStagCheck}), TO wrap (0x03), base and bounds (0x01); then the payload
 *       is copied once, piece by piece, from the socket buffers MPA verified into the region.
 * </ol>
 * TO wrap is checked before bounds ({@link StagCheck} explains why: the other order would make
 * 0x03 unreachable). On L=1 the message is delivered with
 * {@link DdpStreamListener#onTaggedMessage}: its length is the payload octets of all segments
 * with its STag since the previous L=1 segment of that STag, its TO the first segment's. Up to
 * {@link DdpStream#MAX_TAGGED_IN_PROGRESS} tagged messages (distinct STags) may be in progress at
 * once; a peer that interleaves more is reported as {@link DdpError#LOCAL_CATASTROPHIC}.
 *
 * <p>Errors go to the stream ({@link DdpStream#fail}), which stops placement. Event-loop
 * confined; nothing is allocated per segment.
 */
final class TaggedReceiver {
  private static final Logger log = LoggerFactory.getLogger(DdpStream.class);

  private final DdpStream stream;
  private final ProtectionDomain pd;
  private final StagTable stags;
  private final TaggedMessages tagged;

  TaggedReceiver(DdpStream stream, ProtectionDomain pd, int maxInProgress) {
    this.stream = stream;
    this.pd = pd;
    this.stags = pd.table();
    this.tagged = new TaggedMessages(maxInProgress);
  }

  /** Tagged messages whose L=1 segment has not arrived yet. */
  int inProgress() {
    return tagged.inProgress();
  }

  /** One tagged segment (T=1) of {@code length} octets, its control octet {@code control}. */
  void onSegment(Ulpdu segment, int control, int length) {
    int headerLength = Math.min(length, TaggedHeader.LENGTH);
    if (DdpControl.version(control) != DdpControl.VERSION) {
      stream.fail(DdpError.TAGGED_INVALID_DDP_VERSION, segment, headerLength);
      return;
    }
    if (length < TaggedHeader.LENGTH) {
      stream.fail(DdpError.LOCAL_CATASTROPHIC, segment, headerLength);
      return;
    }
    int rsvdUlp = TaggedHeader.rsvdUlp(segment);
    int stag = TaggedHeader.stag(segment);
    long to = TaggedHeader.taggedOffset(segment);
    int payload = length - TaggedHeader.LENGTH;
    boolean last = DdpControl.isLast(control);
    DdpStreamListener listener = stream.listener();
    if (!listener.acceptTagged(rsvdUlp, segment)) {
      if (log.isDebugEnabled()) {
        log.debug("{} tagged segment with RsvdULP 0x{} rejected by the upper layer",
            stream.channel(), Integer.toHexString(rsvdUlp));
      }
      stream.markErroneous();
      return;
    }
    int opcode = RdmapControl.opcode(rsvdUlp);
    if (!OpcodeTable.validTagged(opcode)) {
      // Placement by an opcode with no tagged row would write memory no rule names a right
      // for: an upper-layer bug, stopped before it opens regions to the peer.
      stream.markErroneous();
      throw new IllegalStateException("the upper layer accepted a tagged segment with opcode 0x"
          + Integer.toHexString(opcode) + ", which may not travel tagged; the stream stopped"
          + " placing");
    }
    int access = OpcodeTable.has(opcode, OpcodeTable.SINK_REMOTE_WRITE)
        ? AccessFlags.REMOTE_WRITE : AccessFlags.LOCAL_WRITE;
    int slot = tagged.find(stag);
    if (slot < 0 && !last) {
      slot = tagged.open(stag, to);
      if (slot < 0) {
        // A resource limit of ours, not a field the peer got wrong.
        stream.fail(DdpError.LOCAL_CATASTROPHIC, segment, headerLength);
        return;
      }
    }
    if (payload > 0) {
      StagCheck check = stags.checkAndPlace(stag, to, segment, TaggedHeader.LENGTH, payload,
          access, pd, stream);
      if (check != StagCheck.OK) {
        if (check == StagCheck.INVALID_STAG && access == AccessFlags.LOCAL_WRITE) {
          // Our own sink (a Read's), checked by verbs when it was issued: deregistered since.
          stream.localMemoryGone(-1, 0, segment, headerLength);
          return;
        }
        stream.fail(DdpError.forStagCheck(check), segment, headerLength);
        return;
      }
    }
    if (!last) {
      tagged.add(slot, payload);
      return;
    }
    long messageTo = to;
    long messageLength = payload;
    if (slot >= 0) {
      tagged.add(slot, payload);
      messageTo = tagged.startTo(slot);
      messageLength = tagged.length(slot);
      tagged.close(slot);
    }
    if (log.isDebugEnabled()) {
      log.debug("{} tagged message delivered: rsvdUlp=0x{} stag=0x{} to=0x{} length={}",
          stream.channel(), Integer.toHexString(rsvdUlp), Integer.toHexString(stag),
          Long.toHexString(messageTo), messageLength);
    }
    listener.onTaggedMessage(rsvdUlp, stag, messageTo, messageLength);
  }
}
