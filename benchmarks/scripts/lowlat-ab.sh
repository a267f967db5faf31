#!/bin/sh
# Parked vs busy-poll 8-octet Send ping-pong round trip, interleaved A B C per round:
#   A: iwarp-perf loopback send_lat -s 8 (parked, the default)
#   B: iwarp-perf loopback send_lat -s 8 --busy-poll
#   C: UCX ucx_perftest -t tag_lat -s 8 over tcp on lo (server and client processes)
# Prints one line per run: round, what, round trip in µs (2 x t_typical, or 2 x UCX's typical
# one-way latency). Usage: lowlat-ab.sh JAR [ROUNDS] [PARKED_ITERS] [BUSY_ITERS] [UCX_ITERS]
set -eu
JAR=$1
ROUNDS=${2:-3}
NP=${3:-20000}
NB=${4:-20000}
NU=${5:-20000}
perf() {
  java -cp "$JAR" io.iwarp4j.tools.perf.IwarpPerf loopback send_lat -s 8 --no-progress "$@" \
    2>&1 | awk '/^ 8 /{printf "%.2f\n", 2 * $5}'
}
ucx() {
  port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  UCX_TLS=tcp UCX_NET_DEVICES=lo ucx_perftest -p "$port" >/dev/null 2>&1 &
  server=$!
  sleep 1
  UCX_TLS=tcp UCX_NET_DEVICES=lo timeout 120 ucx_perftest 127.0.0.1 -p "$port" -t tag_lat -s 8 \
    -n "$NU" -w 1000 -v 2>/dev/null | awk -F, -v n="$NU" '$1 == n {v = 2 * $2} END {printf "%.2f\n", v}'
  wait "$server" 2>/dev/null || true
}
for r in $(seq 1 "$ROUNDS"); do
  echo "$r parked-n$NP $(perf -n "$NP") load $(cut -d' ' -f1 /proc/loadavg)"
  echo "$r busy-poll-n$NB $(perf -n "$NB" --busy-poll) load $(cut -d' ' -f1 /proc/loadavg)"
  echo "$r ucx-tag_lat-n$NU $(ucx) load $(cut -d' ' -f1 /proc/loadavg)"
done
