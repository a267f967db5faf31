# perftest.sh - perftest rows of the interop suite, sourced by host/matrix.sh (uses its G,
# row, L, S, PING-style helpers). iwarp-perf (io.iwarp4j.tools.perf) against rdma-core's
# perftest 4.5 in the guest, both roles, over rdma_cm (-R). Ports: 7180-7190, one per host ->
# guest row (hostfwd; a perftest server killed after a failure keeps its port bound in siw, so
# rows never share one), and 7202 (guest -> host guestfwd); all are in the wire-checked capture.
PERF=("$JAVA" -jar "$JAR" iwarp-perf)
PERF_GUEST_TIMEOUT=120

# perf_selected ID: whether the row ID is to run (ONLY, an extended regex on row ids; empty = all;
# SKIP, an extended regex of rows left out, e.g. CI's, docs/interop.md says why).
perf_selected() {
  { [ -z "${ONLY:-}" ] || [[ "$1" =~ $ONLY ]]; } && { [ -z "${SKIP:-}" ] || ! [[ "$1" =~ $SKIP ]]; }
}

# The numeric result line of a perftest-style report: the first line starting with the size.
perf_result() { grep -E "^ *$1 +[0-9]+ " "$2" | head -1 | tr -s ' ' | sed 's/^ //'; }

# perf_crc CRC: the iwarp-perf option and the row id suffix for CRC on (the default) or off.
perf_crc_opt() { [ "$1" = on ] && echo --crc || echo --no-crc; }
perf_crc_sfx() { [ "$1" = on ] || echo -nocrc; }

# perf_begin ID PORT DIR CRC: notes where the guest's kernel log stands and what the row is
# (logs/ID-meta.txt: port, direction, crc), for SiwInteropIT's attribution of a failed CRC-on
# row to siw's split-trailer bug; perf_end ID saves the kernel log lines of the row.
perf_begin() {
  dmesg_mark
  PERF_BASE=${DMESG_BASE:-0}
  printf 'port=%s\ndirection=%s\ncrc=%s\n' "$2" "$3" "$4" > "$L/$1-meta.txt"
}
perf_end() { dmesg_since "$PERF_BASE" "$L/$1-dmesg.txt" > /dev/null; }

# perf_h2g TEST SIZE ITERS PORT SUFFIX CRC: ib_TEST -R server in the guest, iwarp-perf client on
# the host.
perf_h2g() {
  local test=$1 size=$2 iters=$3 port=$4 crc=${6:-on}
  local id="perf-h2g-$1-$2$(perf_crc_sfx "$crc")${5:-}"
  perf_selected "perf-h2g-$1-$2$(perf_crc_sfx "$crc")" || return 0
  perf_begin "$id" "$port" h2g "$crc"
  k=$((k + 1))
  # timeout: a perftest latency test that lost its peer spins on its buffer for ever (and
  # starves the emulated guest); no row here takes a tenth of it.
  G "(timeout $PERF_GUEST_TIMEOUT stdbuf -oL ib_$test -R -d siw0 -F -p $port -s $size -n $iters; echo \$? > perf-$k.rc) > perf-$k.log 2>&1 &
echo \$! > perf-$k.pid
for i in \$(seq 1 50); do ss -ltn | grep -q ':$port ' && exit 0; sleep 0.1; done
sleep 1" 30
  local t0; t0=$(date +%s.%N)
  timeout 300 "${PERF[@]}" "$test" -p "$port" -s "$size" -n "$iters" --no-progress \
    "$(perf_crc_opt "$crc")" 127.0.0.1 \
    > "$L/$id-iwarp-perf.out" 2> "$L/$id-iwarp-perf.err"
  local rc=$?
  local secs; secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
  G "for i in \$(seq 1 100); do [ -f perf-$k.rc ] && break; sleep 0.1; done
if [ ! -f perf-$k.rc ]; then kill \$(cat perf-$k.pid) 2>/dev/null; sleep 0.3; echo 'perftest still running: killed'; exit 98; fi
exit \$(cat perf-$k.rc)" 30
  local grc=$?
  cp "$S/perf-$k.log" "$L/$id-perftest.log" 2>/dev/null
  perf_end "$id"
  perf_row "$id" "iwarp-perf client -> siw ib_$test -R server" "$test" "$size" "$iters" $rc $grc \
    "$L/$id-iwarp-perf.out" "$L/$id-perftest.log" "$secs" client-server "$crc"
}

# perf_g2h TEST SIZE ITERS [ID] [CRC]: iwarp-perf server on the host, ib_TEST -R client in the
# guest. CRC on: our server imposes it in its Reply (siw's Request never asks for it).
perf_g2h() {
  local test=$1 size=$2 iters=$3 crc=${5:-on}
  local id=${4:-perf-g2h-$1-$2$(perf_crc_sfx "$crc")}
  perf_selected "${id%-r[0-9]*}" || return 0
  perf_begin "$id" 7202 g2h "$crc"
  # perftest's write_lat server writes first; siw's client never asks for peer-to-peer mode, so
  # our server (the MPA Responder) may write first only with the non-conformant opt-in that
  # lifts RFC 5044 §7.1.2 rule 4 (siw's own Responder ignores the rule; siw/iw_cm take FPDUs
  # right after the Reply). docs/interop.md, "perftest's write_lat server writes first".
  local extra=() mode=client-server
  if [ "$test" = write_lat ]; then
    extra=(--responder-sends-first)
    mode="client-server, our Responder sends first (opt-in, not RFC 5044 rule 4)"
  fi
  timeout 300 "${PERF[@]}" "$test" -p 7202 -s "$size" -n "$iters" --no-progress \
    "$(perf_crc_opt "$crc")" "${extra[@]}" \
    > "$L/$id-iwarp-perf.out" 2> "$L/$id-iwarp-perf.err" &
  local pid=$!
  for _ in $(seq 1 200); do ss -ltn | grep -q "127.0.0.1:7202 \|\*:7202 \|0.0.0.0:7202 " && break; sleep 0.1; done
  local t0; t0=$(date +%s.%N)
  local limit=$PERF_GUEST_TIMEOUT
  G "timeout $limit stdbuf -oL ib_$test -R -d siw0 -F -p 7202 -s $size -n $iters 10.0.2.100" 300
  local grc=$?
  local secs; secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
  cp "$S/cmd-$n.log" "$L/$id-perftest.log"
  local waited=0
  while kill -0 $pid 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
  kill $pid 2>/dev/null
  wait $pid; local rc=$?
  perf_end "$id"
  perf_row "$id" "siw ib_$test -R client -> iwarp-perf server" "$test" "$size" "$iters" $rc $grc \
    "$L/$id-iwarp-perf.out" "$L/$id-perftest.log" "$secs" "$mode" "$crc"
}

perf_row() { # ID DIRECTION TEST SIZE ITERS RC_OURS RC_PERFTEST OURS_OUT PERFTEST_LOG SECS [MODE] [CRC]
  local id=$1 dir=$2 test=$3 size=$4 iters=$5 rc=$6 grc=$7 ours=$8 theirs=$9 secs=${10}
  local mode=${11:-client-server} crc=${12:-on}
  local r1; r1=$(perf_result "$size" "$ours")
  local r2; r2=$(perf_result "$size" "$theirs")
  local what="#bytes #iter BW-peak BW-avg[MB/s] Mpps"
  case $test in *lat) what="#bytes #iter t_min t_max t_typical t_avg t_stdev 99% 99.9% [us]" ;; esac
  if [ "$rc" = 0 ] && [ "$grc" = 0 ] && { [ -n "$r1" ] || [ -n "$r2" ]; }; then
    row "$id" "$dir" "$test -s $size -n $iters" "$crc" "$mode" PASS "$secs" "$what: iwarp-perf '${r1:-(none)}', perftest '${r2:-(none)}'"
  else
    row "$id" "$dir" "$test -s $size -n $iters" "$crc" "$mode" FAIL "$secs" "iwarp-perf rc $rc, perftest rc $grc: $(tail -1 "${ours%.out}.err" | cut -c1-120) / $(grep -v '^ *$' "$theirs" | tail -1 | cut -c1-120)"
  fi
}

# run_perftest: the 44 rows (22 with CRC off, then the same 22 with CRC on), PERF_REPEAT times (default 1; row ids get -rN when above 1), only
# the rows whose id matches ONLY when it is set. A repeated h2g row reuses its port: fine while
# it passes (a perftest server killed after a failure keeps its port bound in siw).
run_perftest() {
  local rep sfx
  for rep in $(seq 1 "${PERF_REPEAT:-1}"); do
    sfx=""; [ "${PERF_REPEAT:-1}" -gt 1 ] && sfx="-r$rep"
    local port=7180
    for t in write_bw read_bw send_bw write_lat; do
      # The issue's matrix: bandwidth at 64 B, 4 KiB and 64 KiB; write_lat at 64 B and 64 KiB.
      local sizes="64 4096 65536"
      case $t in *lat) sizes="64 65536" ;; esac
      for s in $sizes; do
        local it=1000
        [ $s = 65536 ] && it=200
        case $t in *lat) it=200 ;; esac
        # CRC off first: a CRC-on row that siw's split-trailer bug fails leaves its perftest
        # server's port bound in siw, and h2g rows of the same test share the port.
        for crc in off on; do
          perf_h2g $t $s $it $port "$sfx" $crc
          perf_g2h $t $s $it "perf-g2h-$t-$s$(perf_crc_sfx $crc)$sfx" $crc
        done
        port=$((port + 1))
      done
    done
  done
}

# perfread: siw's ib_read_bw client against our server at 64 KiB, PERF_READ_REPEAT times (default
# 5): once, on 2026-11-21 before the hotpath fixes, siw ended such a run with a Terminate (see
# docs/interop.md); not part of the 16 perftest rows.
run_perfread() {
  for i in $(seq 1 "${PERF_READ_REPEAT:-5}"); do
    perf_g2h read_bw 65536 200 "perfrep-g2h-read_bw-65536-$i"
  done
}
