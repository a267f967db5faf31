#!/bin/sh
# 8-octet Send ping-pong round trips, parked and low-latency, interleaved: every variant once per
# round (odd rounds in the order below, even rounds reversed), then per-variant medians and the
# per-round ratios of issue 17's acceptance 1 and 2. Round trip = 2 x t_typical (iwarp-perf),
# 2 x UCX's typical one-way latency, or a JMH row's p50 (SampleTime, one fork, JMH_WI x 1 s
# warm-up (default 5, as run-suite.py's targets: with 2, C2 still compiles iwarp4j's data path in
# the measured seconds), 3 x 1 s measured; VerbsLoopLatencyBenchmark: per round trip, the p50
# of 100-round-trip means).
#   ipf-parked[-old]  iwarp-perf loopback send_lat -s 8 (parked, the default)
#   ipf-parked-rtc    ... --run-to-completion (the ping-pong runs on the event loops)
#   ipf-busy[-old]    ... --busy-poll (four spinners in loopback: two loops, two threads)
#   ipf-busy-rtc      ... --busy-poll --run-to-completion (two spinners: the two loops)
#   ucx               ucx_perftest -t tag_lat -s 8 over tcp on lo (two processes, busy-polling)
#   jmh-verbs-parked[-old]  VerbsLatencyBenchmark SEND 8 B, CRC on, PARKED (the suite's row)
#   jmh-netty-park    NettyLatencyBenchmark 8 B PARK (the suite's baseline for that row)
#   jmh-netty-park-thread  ... echo=THREAD: a parked application thread at both ends, each
#                     handing its message to its loop (iwarp-perf send_lat's parked structure)
#   jmh-loop-parked / jmh-loop-busy  VerbsLoopLatencyBenchmark 8 B, CRC on, PARKED / BUSY_POLL
# Each line: round, variant, round trip in us, 1-minute load average after the run.
# Usage: lowlat-ab.sh JAR [ROUNDS] [ITERS] [OLD_JAR]   (OLD_JAR adds the *-old variants)
# ITERS: iwarp-perf's -n (default 20000; its latency tests have no warm-up, so take 200000 for
# a median of JIT-compiled code); UCX_N: ucx_perftest's -n (default 20000, after its -w 1000).
set -eu
JAR=$1
ROUNDS=${2:-3}
N=${3:-20000}
OLD=${4:-}
UCX_N=${UCX_N:-20000}
OUT=$(mktemp)
perf() {
  jar=$1
  shift
  java -cp "$jar" io.iwarp4j.tools.perf.IwarpPerf loopback send_lat -s 8 -n "$N" --no-progress \
    "$@" 2>&1 | awk '/^ 8 /{printf "%.2f\n", 2 * $5}'
}
ucx() {
  port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  UCX_TLS=tcp UCX_NET_DEVICES=lo ucx_perftest -p "$port" >/dev/null 2>&1 &
  server=$!
  sleep 1
  UCX_TLS=tcp UCX_NET_DEVICES=lo timeout 120 ucx_perftest 127.0.0.1 -p "$port" -t tag_lat -s 8 \
    -n "$UCX_N" -w 1000 -v 2>/dev/null | awk -F, -v n="$UCX_N" '$1 == n {v = 2 * $2} END {printf "%.2f\n", v}'
  kill "$server" 2>/dev/null || true # a client that timed out leaves it waiting
  wait "$server" 2>/dev/null || true
}
jmh() {
  jar=$1
  shift
  json=$(mktemp --suffix=.json)
  java -Djmh.ignoreLock=true -jar "$jar" jmh "$@" -p size=8 -f 1 -wi "${JMH_WI:-5}" -i 3 -w 1s -r 1s \
    -rf json -rff "$json" >/dev/null 2>&1
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.2f" % d[0]["primaryMetric"]["scorePercentiles"]["50.0"])' "$json"
  rm -f "$json"
}
run() {
  case $1 in
    ipf-parked) perf "$JAR" ;;
    ipf-parked-old) perf "$OLD" ;;
    ipf-parked-rtc) perf "$JAR" --run-to-completion ;;
    ipf-busy) perf "$JAR" --busy-poll ;;
    ipf-busy-old) perf "$OLD" --busy-poll ;;
    ipf-busy-rtc) perf "$JAR" --busy-poll --run-to-completion ;;
    ucx) ucx ;;
    jmh-verbs-parked) jmh "$JAR" 'VerbsLatencyBenchmark.roundTrip' -p kind=SEND -p crc=true -p pollMode=PARKED ;;
    jmh-verbs-parked-old) jmh "$OLD" 'VerbsLatencyBenchmark.roundTrip' -p kind=SEND -p crc=true -p pollMode=PARKED ;;
    jmh-netty-park) jmh "$JAR" 'NettyLatencyBenchmark.roundTrip' -p wait=PARK ;;
    jmh-netty-park-thread) jmh "$JAR" 'NettyLatencyBenchmark.roundTrip' -p wait=PARK -p echo=THREAD ;;
    jmh-loop-parked) jmh "$JAR" 'VerbsLoopLatencyBenchmark' -p crc=true -p pollMode=PARKED ;;
    jmh-loop-busy) jmh "$JAR" 'VerbsLoopLatencyBenchmark' -p crc=true -p pollMode=BUSY_POLL ;;
  esac
}
VARIANTS="ipf-parked ipf-parked-rtc ipf-busy ipf-busy-rtc ucx jmh-verbs-parked jmh-netty-park jmh-netty-park-thread jmh-loop-parked jmh-loop-busy"
if [ -n "$OLD" ]; then
  VARIANTS="ipf-parked-old $VARIANTS ipf-busy-old jmh-verbs-parked-old"
fi
REVERSED=$(echo "$VARIANTS" | tr ' ' '\n' | tac | tr '\n' ' ')
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then order=$VARIANTS; else order=$REVERSED; fi
  for v in $order; do
    echo "$r $v $(run "$v") load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$OUT"
  done
done
python3 - "$OUT" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 5]
by = {}
for r, v, x, _, load in rows:
    by.setdefault(v, {})[int(r)] = float(x)
loads = [float(l[4]) for l in rows]
print("load average during the run: %.1f-%.1f" % (min(loads), max(loads)))
print("%-22s %8s %17s" % ("round trip, us", "median", "min-max"))
for v, xs in by.items():
    x = [y for y in xs.values() if y > 0]
    if x:
        print("%-22s %8.1f %8.1f-%-8.1f" % (v, statistics.median(x), min(x), max(x)))
def ratio(a, b):
    if a not in by or b not in by:
        return
    q = [by[a][r] / by[b][r] for r in by[a] if r in by[b] and by[b][r] > 0 and by[a][r] > 0]
    if q:
        print("%s / %s: median %.2f (min %.2f, max %.2f) over %d rounds"
              % (a, b, statistics.median(q), min(q), max(q), len(q)))
print("per-round ratios:")
for a, b in [("ipf-busy-rtc", "ucx"), ("ipf-busy", "ucx"), ("ipf-busy-old", "ucx"),
             ("jmh-loop-busy", "ucx"), ("jmh-verbs-parked", "jmh-netty-park"),
             ("jmh-verbs-parked-old", "jmh-netty-park"), ("ipf-parked", "jmh-netty-park"),
             ("ipf-parked-old", "jmh-netty-park"), ("ipf-parked-rtc", "jmh-netty-park"),
             ("ipf-parked", "jmh-netty-park-thread"), ("ipf-parked-old", "jmh-netty-park-thread"),
             ("jmh-loop-parked", "jmh-netty-park")]:
    ratio(a, b)
EOF
rm -f "$OUT"
