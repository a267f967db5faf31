#!/bin/bash
# run-interop.sh - the iwarp4j <-> Linux soft-iWARP (siw) interop suite, in one command.
#
#   src-it/interop/run-interop.sh [OUTDIR]
#
# Builds the siw guest image unless it is cached and current (lab/build-image.sh, needs root),
# boots it once under qemu (lab/boot.sh), runs every scenario against it (host/matrix.sh on the
# host, guest/runner.sh in the guest), captures the host's loopback and checks every capture
# with the project's wire checker (io.iwarp4j.it.wirecheck.WireCheckMain, per sender: our end
# must send no error). Writes OUTDIR/results.tsv and OUTDIR/summary.txt.
# Exit status: 0 all passed, 1 a scenario or a wire check failed, 3 the VM could not be
# built or booted (infrastructure, not protocol), 2 a usage/setup error (jar missing...).
#
# Needs: benchmarks/target/iwarp4j-benchmarks.jar and src-it/target/test-classes (the wire
# checker): `mvn -B -pl src-it -am verify -DskipTests` builds both.
# Environment: JAR (default benchmarks/target/iwarp4j-benchmarks.jar), SCENARIOS ("matrix" default; "perftest" adds
# iwarp-perf against perftest, CRC off and on; "p2p" P2P warm connections (P2P per RTR type,
# default 100) with a kernel-log check; "stream" iwarp-ping --stream-after-rtr=STREAM (default
# 1000) against ucmatose; "race"/"warmrace" measure siw's accept race; "headercut" siw's
# bugs 4 and 1 on purpose, four FPDU-cut rows, also run with "perftest"), REPEAT (matrix repetitions, default 1), RACE (connections per race
# measurement, default 50), RACE_DELAYS (default "0 50"), TIMEOUT (VM seconds, default 900),
# ONLY (an extended regex: run only the perftest rows whose id matches), SKIP (an extended regex:
# leave out the perftest rows whose id matches), PERF_REPEAT (perftest
# rows repetitions, default 1).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LAB=$HERE/lab
CHECKER_DIR=$ROOT/src-it/target/test-classes
export JAR=${JAR:-$ROOT/benchmarks/target/iwarp4j-benchmarks.jar}
# The checker's own framer prints with test-support's Hex, which needs Netty (in the tools' jar);
# the header-cut rows' proxy is testkit's FaultProxy.
export CHECKER_CP=$CHECKER_DIR:$ROOT/test-support/target/classes:$ROOT/testkit/target/classes:$JAR
export SCENARIOS=${SCENARIOS:-matrix} REPEAT=${REPEAT:-1} RACE=${RACE:-50} RACE_DELAYS=${RACE_DELAYS:-0 50}
OUT=${1:-$ROOT/src-it/target/interop/run-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
say() { echo "[interop $(date -u +%H:%M:%S)] $*"; }

[ -f "$JAR" ] || { say "SETUP: $JAR missing (mvn -pl benchmarks -am package)"; exit 2; }
[ -f "$CHECKER_DIR/io/iwarp4j/it/wirecheck/WireCheckMain.class" ] \
  || { say "SETUP: the wire checker is not compiled (mvn -pl src-it -am test-compile)"; exit 2; }
[ -f "$ROOT/testkit/target/classes/io/iwarp4j/testkit/FaultProxy.class" ] \
  || { say "SETUP: testkit is not compiled (mvn -pl src-it -am test-compile)"; exit 2; }
for tool in qemu-system-x86_64 socat tshark dumpcap bc ss; do
  command -v $tool >/dev/null 2>&1 || { say "INFRA: $tool is not installed"; exit 3; }
done

# Builds the image when it is missing or its builder changed; says so at once otherwise.
say "siw guest image: lab/build-image.sh (about 6 min when it must be built)"
if ! "$LAB/build-image.sh" > "$OUT/build.log" 2>&1; then
  say "INFRA: build-image.sh failed, see $OUT/build.log"; tail -20 "$OUT/build.log"; exit 3
fi

# One capture of the host's loopback for both forwarded ports, checked per port afterwards.
PCAP=$OUT/interop.pcap
dumpcap -i lo -f "tcp port 7174 or tcp port 7200 or tcp portrange 7210-7249 or tcp port 7202" -B 64 -s 0 -P -w "$PCAP" > "$OUT/dumpcap.log" 2>&1 &
CAP=$!
for _ in $(seq 1 100); do grep -q "Capturing on" "$OUT/dumpcap.log" && break; sleep 0.1; done
sleep 0.5

say "booting the siw guest and running: $SCENARIOS (repeat $REPEAT)"
# With perftest rows, the guest's link is captured too (guest-link.pcap): SiwInteropIT's evidence
# that a failed CRC-on row met siw's split-trailer bug (the segments as siw's TCP got them).
# The FPDU-cut rows (header and trailer; scenario headercut, and with perftest) need it for
# their verdict.
case " $SCENARIOS " in *" perftest "*|*" headercut "*) export DUMP=$OUT/guest-link.pcap ;; esac
# 7174/7200: rping (captured); 7210-7249/7202: perftest (captured; a port per h2g row and
# retry, host/perftest.sh); 7176-7179/7201: the race
# measurements (not captured).
HOSTFWD="tcp:127.0.0.1:7174-:7174 $(for p in $(seq 7210 7249); do printf 'tcp:127.0.0.1:%s-:%s ' $p $p; done)tcp:127.0.0.1:7176-:7176 tcp:127.0.0.1:7177-:7177 tcp:127.0.0.1:7178-:7178 tcp:127.0.0.1:7179-:7179" \
GUESTFWD="tcp:10.0.2.100:7200-cmd:socat STDIO TCP:127.0.0.1:7200;tcp:10.0.2.100:7201-cmd:socat STDIO TCP:127.0.0.1:7201;tcp:10.0.2.100:7202-cmd:socat STDIO TCP:127.0.0.1:7202" \
HOST_CMD="bash $HERE/host/matrix.sh" TIMEOUT=${TIMEOUT:-900} \
  "$LAB/boot.sh" "$HERE/guest/runner.sh" "$OUT/vm" > "$OUT/run.log" 2>&1
vm_rc=$?
kill -TERM $CAP 2>/dev/null; wait $CAP 2>/dev/null
cp "$OUT/vm/host.log" "$OUT/host.log" 2>/dev/null
[ -f "$OUT/vm/results.tsv" ] && mv "$OUT/vm/results.tsv" "$OUT/results.tsv"
[ -f "$OUT/vm/rows.tsv" ] && mv "$OUT/vm/rows.tsv" "$OUT/rows.tsv"
[ -d "$OUT/vm/logs" ] && mv "$OUT/vm/logs" "$OUT/logs"
cp "$OUT/vm/out/guest-versions.txt" "$OUT/" 2>/dev/null
if [ ! -f "$OUT/vm/out/ready-uptime" ]; then
  say "INFRA: the siw guest never became ready (see $OUT/run.log, $OUT/vm/console.log)"
  exit 3
fi
[ -s "$OUT/results.tsv" ] || { say "no results (vm rc $vm_rc), see $OUT/host.log"; exit 1; }

fail=0
ports="7174 7200"
# The perftest h2g ports in one pass (7210-7249: one report, each connection judged on its own):
# a pass per port re-read the whole capture each time (about 3 min for 11 ports).
case " $SCENARIOS " in *" perftest "*) ports="$ports 7210-7249 7202" ;; esac
for port in $ports; do
  # Each connection belongs to the row whose window and port hold it (rows.tsv, host/matrix.sh).
  # Only the markers row may be rejected (siw answers M=1 with R=1) and only the two RFC 7306
  # probes may get a Terminate from siw, the one siw sends for an opcode it lacks (2/0/0x6 in
  # RFC 5040's layout: siw's swapped nibbles); each must then be seen.
  allow=(); [ -s "$OUT/rows.tsv" ] && allow=(--rows "$OUT/rows.tsv")
  # The header-cut and trailer-cut CRC rows must get siw's Terminate for an MPA CRC error
  # (0/2/0x2 as siw's swapped nibbles read).
  for e in h2g-markers=reject h2g-7306-fetchadd=terminate:2/0/0x6 h2g-7306-imm=terminate:2/0/0x6 \
      h2g-hdrcut-crc=terminate:0/2/0x2 h2g-trlcut-crc=terminate:0/2/0x2; do
    [ $port = 7174 ] && grep -q "^${e%%=*}"$'\t' "$OUT/rows.tsv" 2>/dev/null && allow+=(--expect "$e")
  done
  # On host -> guest ports our end is the MPA Initiator, on guest -> host ports the Responder;
  # the verdict is per sender (WireCheckMain's Javadoc): ours must send no error.
  ours=initiator; case $port in 7200|7202) ours=responder ;; esac
  wc_t0=$(date +%s)
  java -cp "$CHECKER_CP" io.iwarp4j.it.wirecheck.WireCheckMain "$PCAP" $port "${allow[@]}" \
    --ours $ours > "$OUT/wirecheck-$port.txt" 2>&1
  rc=$?
  say "wirecheck $port: exit $rc in $(( $(date +%s) - wc_t0 )) s"
  if [ $rc = 3 ]; then
    # No iWARP traffic on this port: the scenarios run did not use it.
    printf 'wirecheck\tport %s\t%s\t-\t-\tn/a\t-\tno traffic on this port\n' "$port" \
      "wirecheck $(basename "$PCAP") $port" >> "$OUT/results.tsv"
    continue
  fi
  errs=$(grep -E '^(FPDUs decoded by tshark:|Errors:|Terminate from |Unchecked:|By sender:)' "$OUT/wirecheck-$port.txt" | tr '\n' ' ')
  if [ $rc = 0 ]; then verdict=PASS; else verdict=FAIL; fail=1; fi
  printf 'wirecheck\tport %s\t%s\t-\t-\t%s\t-\t%s\n' "$port" "wirecheck $(basename "$PCAP") $port" \
    "$verdict" "${errs:-see wirecheck-$port.txt}exit $rc" >> "$OUT/results.tsv"
done
grep -q -P '\tFAIL\t' "$OUT/results.tsv" && fail=1
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "guest: $(tr '\n' ';' < "$OUT/guest-versions.txt" 2>/dev/null)"
  echo "host: $(uname -r), $(java -version 2>&1 | head -1), $(tshark --version 2>/dev/null | head -1)"
  echo "vm: $(tr '\n' ' ' < "$OUT/vm/timings.txt" 2>/dev/null)"
  column -t -s $'\t' "$OUT/results.tsv" 2>/dev/null || cat "$OUT/results.tsv"
} > "$OUT/summary.txt"
cat "$OUT/summary.txt"
say "results in $OUT ($([ $fail = 0 ] && echo PASSED || echo FAILED))"
exit $fail
