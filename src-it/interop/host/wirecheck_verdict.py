#!/usr/bin/env python3
"""wirecheck_verdict.py - split iwarp-wirecheck's findings on one port by who sent the octets.

usage: wirecheck_verdict.py CHECK.json PCAP PORT RESPONDER

check.py judges a whole capture; in the interop suite one end is iwarp4j and the other Linux
siw, and check.py's verdict does not say which one broke a rule. This script attributes every
error finding of `check.py --json` to its sender and prints one line:

    ours <n> [codes] | siw <n> [codes] | capture/hostfwd <n> [codes] | verdict PASS|FAIL

RESPONDER is who listens on PORT: "siw" (host -> guest ports, our end is the MPA Initiator)
or "ours" (guest -> host ports). Attribution: a finding's frame is looked up in the capture
(its TCP source port is PORT -> the Responder sent it, else the Initiator); findings without a
frame carry "i2r:"/"r2i:" in their message. Capture and NAT artefacts are their own class,
"capture/hostfwd": T_CAPTURE (TCP retransmissions the capture saw on the busy loopback) and
T_NO_REPLY on a connection whose Responder side carried no octet at all (qemu's hostfwd
accepts every TCP connection on the host, then resets it when nothing listens in the guest, or
keeps it while the guest never answers; iwarp-perf then retries its data connect).
A stream that ends inside an FPDU (F_TRUNCATED, and the T_UNDECODED it causes) because the
other end reset the connection is counted as "cut by the peer's reset", not as the sender's.
T_MALFORMED / T_UNDECODED on a frame where tshark's own dissector failed an assertion ("Dissector
bug", e.g. `saved_layers_len < prefs.gui_max_tree_depth` on a 23 KB loopback segment holding
hundreds of 84-octet FPDUs) count as "tshark dissector bug" only when check.py's own framer
reported no framing error (F_*, other than siw's known PAD) on that stream: the octets decoded.

Verdict PASS: no finding sent by iwarp4j, no unattributed finding, and siw's findings only
the non-zero PAD siw is known to send (S_PAD_NONZERO / F_PAD_NONZERO, docs/interop.md).
Nothing is dropped: every count is printed. Exit status 0 PASS, 1 FAIL, 2 usage.
"""
import collections
import json
import subprocess
import sys

SIW_KNOWN = {"S_PAD_NONZERO", "F_PAD_NONZERO"}


def main(argv):
    if len(argv) != 5 or argv[4] not in ("siw", "ours"):
        print(__doc__, file=sys.stderr)
        return 2
    check_json, pcap, port, responder = argv[1], argv[2], int(argv[3]), argv[4]
    with open(check_json) as fh:
        res = json.load(fh)
    src = {}
    resets = set()   # (stream, "i2r"|"r2i"): a RST sent in that direction
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-Y", "tcp.port==%d" % port, "-T", "fields",
                          "-e", "frame.number", "-e", "tcp.srcport", "-e", "tcp.stream",
                          "-e", "tcp.flags.reset"],
                         capture_output=True, text=True, check=False).stdout
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) == 4 and f[0].isdigit() and f[1].isdigit():
            src[int(f[0])] = int(f[1])
            if f[3] in ("1", "True"):
                resets.add((int(f[2]), "r2i" if int(f[1]) == port else "i2r"))
    # Frames on which tshark's dissector failed an assertion (its bug, not the sender's).
    # With check.py's own dissection preferences (TSHARK_PREFS there): the MPA heuristic must
    # run first, as in check.py, or the dissector that fails is never reached.
    out = subprocess.run(["tshark", "-n", "-r", pcap,
                          "-o", "tcp.try_heuristic_first:TRUE",
                          "-o", "tcp.desegment_tcp_streams:TRUE",
                          "-o", "tcp.analyze_sequence_numbers:TRUE",
                          "-o", "iwarp_ddp_rdmap.reassemble_iwarp_rdma_send:FALSE",
                          "--disable-heuristic", "rpcrdma_iwarp",
                          "--disable-heuristic", "smb_direct_iwarp", "-Y",
                          'tcp.port==%d && _ws.expert.message contains "failed assertion"' % port,
                          "-T", "fields", "-e", "frame.number"],
                         capture_output=True, text=True, check=False).stdout
    dissector_bug = {int(x) for x in out.split() if x.isdigit()}
    framing_errors = {it.get("stream") for it in res.get("findings", [])
                      if it.get("level") == "error" and str(it.get("code", "")).startswith("F_")
                      and it.get("code") not in SIW_KNOWN}
    silent_responder = {s["stream"] for s in res.get("streams", [])
                        if not (s.get("payload_bytes") or {}).get("r2i")}
    initiator = "ours" if responder == "siw" else "siw"
    who = collections.defaultdict(collections.Counter)
    for it in res.get("findings", []):
        if it.get("level") != "error":
            continue
        code = it["code"]
        if code == "T_CAPTURE" or (code == "T_NO_REPLY" and it.get("stream") in silent_responder):
            who["capture/hostfwd"][code] += 1
            continue
        msg = str(it.get("msg", ""))
        if (code in ("T_MALFORMED", "T_UNDECODED") and it.get("frame") in dissector_bug
                and it.get("stream") not in framing_errors):
            who["tshark dissector bug"][code] += 1
            continue
        if code in ("F_TRUNCATED", "T_UNDECODED") and msg[:3] in ("i2r", "r2i"):
            other = "r2i" if msg.startswith("i2r") else "i2r"
            cut = (it.get("stream"), other) in resets
            if cut and (code == "F_TRUNCATED" or "1 framing errors" in msg):
                # The other end reset the connection while this direction's FPDU was on the
                # wire (perftest's write_bw server exits once the client reported; the octets
                # queued towards it are dropped): a cut stream, not a framing error.
                who["cut by the peer's reset"][code] += 1
                continue
        sender = None
        frame = it.get("frame")
        if isinstance(frame, int) and frame in src:
            sender = responder if src[frame] == port else initiator
        else:
            if msg.startswith("i2r"):
                sender = initiator
            elif msg.startswith("r2i"):
                sender = responder
        who[sender or "unattributed"][code] += 1
    ok = (not who["ours"] and not who["unattributed"]
          and set(who["siw"]) <= SIW_KNOWN)

    def part(name):
        c = who[name]
        return "%s %d%s" % (name, sum(c.values()), (" " + json.dumps(dict(sorted(c.items()))))
                            if c else "")
    parts = [part("ours"), part("siw"), part("capture/hostfwd")]
    if who["tshark dissector bug"]:
        parts.append(part("tshark dissector bug"))
    if who["cut by the peer's reset"]:
        parts.append(part("cut by the peer's reset"))
    if who["unattributed"]:
        parts.append(part("unattributed"))
    print(" | ".join(parts) + " | verdict " + ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
