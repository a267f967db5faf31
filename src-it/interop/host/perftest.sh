# perftest.sh - perftest rows of the interop suite, sourced by host/matrix.sh (uses its G,
# row, L, S, PING-style helpers). iwarp-perf (io.iwarp4j.tools.perf) against rdma-core's
# perftest 4.5 in the guest, both roles, over rdma_cm (-R). Ports: 7210-7249 for the host ->
# guest rows (hostfwd), a fresh one for every row and every retry of a row (a perftest server
# killed after a failure keeps its port bound in siw, and one lost connect must not fail the
# next row), and 7202 (guest -> host guestfwd); all are in the wire-checked capture.
PERF=("$JAVA" -jar "$JAR" iwarp-perf)
PERF_GUEST_TIMEOUT=120
PERF_PORT_FIRST=${PERF_PORT_FIRST:-7210}
PERF_PORT=$PERF_PORT_FIRST
PERF_PORT_LAST=${PERF_PORT_LAST:-7249}
# Attempts of an h2g row whose connections never came up (below): 1 + this many.
PERF_CONNECT_RETRIES=${PERF_CONNECT_RETRIES:-2}
# After our end is done (passed or failed), how long the guest's perftest may take to finish
# before it is killed: a perftest latency test whose peer is gone spins on its buffer until its
# timeout (PERF_GUEST_TIMEOUT) and starves the emulated guest meanwhile.
PERF_GUEST_GRACE=${PERF_GUEST_GRACE:-15}

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

# perf_next_port: sets PORT to a host -> guest port no row used yet.
perf_next_port() {
  if [ "$PERF_PORT" -gt "$PERF_PORT_LAST" ]; then
    echo "perftest: out of host -> guest ports ($PERF_PORT_FIRST-$PERF_PORT_LAST)"; return 1
  fi
  PORT=$PERF_PORT; PERF_PORT=$((PERF_PORT + 1))
}

# perf_connect_lost ERRFILE: whether iwarp-perf failed before any data moved because a
# connection never came up: the control connect, or a data connect given up by its own retries
# (DataConnectRetry: refused, reset before any MPA Reply, or no Reply within 5 s while the guest
# was slow, e.g. under a host load of 15). Never true after a data transfer began: such a row
# fails as it is.
perf_connect_lost() {
  grep -q -E '^iwarp-perf: cannot connect (data QP [0-9]+ |control )?to ' "$1" \
    && ! grep -q -E 'work request failed|after [0-9]+ completions' "$1"
}

# perf_guest_wait K GRACE: waits (host side, on the share) for the guest's perf-K.rc, at most
# GRACE seconds, then kills the guest's perftest; returns its status (98: killed, 97: unreadable).
perf_guest_wait() {
  local k=$1 grace=$2 t
  t=$(( $(date +%s) + grace ))
  while [ ! -f "$S/perf-$k.rc" ] && [ "$(date +%s)" -lt "$t" ]; do sleep 0.2; done
  if [ ! -f "$S/perf-$k.rc" ]; then
    G "kill \$(cat perf-$k.pid) 2>/dev/null; sleep 0.3; kill -9 \$(cat perf-$k.pid) 2>/dev/null; exit 0" 30
    echo "perftest still running ${grace} s after iwarp-perf ended: killed" >> "$S/perf-$k.log"
    return 98
  fi
  # The guest writes the file by rename (whole); an empty read would make `return` fail with 2.
  local v; v=$(tr -dc '0-9' < "$S/perf-$k.rc")
  return "${v:-97}"
}

# perf_h2g TEST SIZE ITERS SUFFIX CRC [SRQ]: ib_TEST -R server in the guest, iwarp-perf client on
# the host, on a fresh port. SRQ=srq: the server runs with --use-srq, perftest 4.5's spelling (ids send_bw-srq-SIZE).
# A row whose connections never came up (perf_connect_lost) is run again on a fresh port, at
# most PERF_CONNECT_RETRIES times, with a RETRY line in the host log and the row's detail.
perf_h2g() {
  local test=$1 size=$2 iters=$3 crc=${5:-on} srq=${6:-}
  local name=$test srvopt=""
  [ "$srq" = srq ] && { name=$test-srq; srvopt=--use-srq; }
  local base="perf-h2g-$name-$size$(perf_crc_sfx "$crc")"
  local id="$base${4:-}"
  perf_selected "$base" || return 0
  local attempt=1 retried="" rc grc secs
  perf_next_port || return 0
  perf_begin "$id" "$PORT" h2g "$crc"
  win_begin 0 # every attempt has a port of its own
  while :; do
    k=$((k + 1))
    # timeout: a perftest latency test that lost its peer spins on its buffer for ever (and
    # starves the emulated guest); no row here takes a tenth of it.
    G "(timeout $PERF_GUEST_TIMEOUT stdbuf -oL ib_$test -R $srvopt -d siw0 -F -p $PORT -s $size -n $iters; echo \$? > perf-$k.rc.tmp; mv perf-$k.rc.tmp perf-$k.rc) > perf-$k.log 2>&1 &
echo \$! > perf-$k.pid
for i in \$(seq 1 50); do ss -ltn | grep -q ':$PORT ' && exit 0; sleep 0.1; done
sleep 1" 30
    local t0; t0=$(date +%s.%N)
    timeout 300 "${PERF[@]}" "$test" -p "$PORT" -s "$size" -n "$iters" --no-progress \
      "$(perf_crc_opt "$crc")" 127.0.0.1 \
      > "$L/$id-iwarp-perf.out" 2> "$L/$id-iwarp-perf.err"
    rc=$?
    secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
    perf_guest_wait $k "$PERF_GUEST_GRACE"; grc=$?
    cp "$S/perf-$k.log" "$L/$id-perftest.log" 2>/dev/null
    if [ $rc != 0 ] && [ $attempt -le "$PERF_CONNECT_RETRIES" ] \
        && perf_connect_lost "$L/$id-iwarp-perf.err"; then
      local why; why=$(grep -m1 -E '^iwarp-perf: cannot connect' "$L/$id-iwarp-perf.err" | cut -c1-200)
      cp "$L/$id-iwarp-perf.err" "$L/$id-attempt$attempt-iwarp-perf.err"
      cp "$L/$id-perftest.log" "$L/$id-attempt$attempt-perftest.log" 2>/dev/null
      local old=$PORT
      perf_next_port || break
      echo "RETRY $id: attempt $attempt on port $old lost its connection before any data ($why); attempt $((attempt + 1)) on port $PORT"
      retried="$retried; attempt $attempt on port $old lost its connection before any data, retried: $why"
      # The wire check and the attribution look at the port the row ran on last.
      sed -i "s/^port=.*/port=$PORT/" "$L/$id-meta.txt"
      attempt=$((attempt + 1))
      continue
    fi
    break
  done
  perf_end "$id"
  local srqdesc=""; [ "$srq" = srq ] && srqdesc=" --use-srq"
  perf_row "$id" "iwarp-perf client -> siw ib_$test -R$srqdesc server" "$test$srqdesc" "$size" "$iters" $rc $grc \
    "$L/$id-iwarp-perf.out" "$L/$id-perftest.log" "$secs" client-server "$crc" "$retried"
}

# perf_g2h TEST SIZE ITERS [ID] [CRC] [SRQ]: iwarp-perf server on the host, ib_TEST -R client in
# the guest. CRC on: our server imposes it in its Reply (siw's Request never asks for it).
# SRQ=srq: our server runs with --use-srq (perftest's client is given it too, and ignores it for
# a bandwidth test, as ours does).
perf_g2h() {
  local test=$1 size=$2 iters=$3 crc=${5:-on} srq=${6:-}
  local name=$test opt=()
  [ "$srq" = srq ] && { name=$test-srq; opt=(--use-srq); }
  local id=${4:-perf-g2h-$name-$size$(perf_crc_sfx "$crc")}
  perf_selected "${id%-r[0-9]*}" || return 0
  perf_begin "$id" 7202 g2h "$crc"
  win_begin 7202
  # perftest's write_lat server writes first; siw's client never asks for peer-to-peer mode, so
  # our server (the MPA Responder) may write first only with the non-conformant opt-in that
  # lifts RFC 5044 §7.1.2 rule 4 (siw's own Responder ignores the rule; siw/iw_cm take FPDUs
  # right after the Reply). docs/interop.md, "perftest's write_lat server writes first".
  local extra=() mode=client-server
  if [ "$test" = write_lat ]; then
    extra=(--responder-sends-first)
    mode="client-server, our Responder sends first (opt-in, not RFC 5044 rule 4)"
  fi
  local attempt=1 retried="" rc grc secs
  while :; do
  timeout 300 "${PERF[@]}" "$test" -p 7202 -s "$size" -n "$iters" --no-progress \
    "$(perf_crc_opt "$crc")" "${extra[@]}" "${opt[@]}" \
    > "$L/$id-iwarp-perf.out" 2> "$L/$id-iwarp-perf.err" &
  local pid=$!
  for _ in $(seq 1 200); do ss -ltn | grep -q "127.0.0.1:7202 \|\*:7202 \|0.0.0.0:7202 " && break; sleep 0.1; done
  local t0; t0=$(date +%s.%N)
  k=$((k + 1))
  G "(timeout $PERF_GUEST_TIMEOUT stdbuf -oL ib_$test -R ${opt[*]} -d siw0 -F -p 7202 -s $size -n $iters 10.0.2.100; echo \$? > perf-$k.rc.tmp; mv perf-$k.rc.tmp perf-$k.rc) > perf-$k.log 2>&1 &
echo \$! > perf-$k.pid" 30
  # The guest's client ends by itself when the test ends; once our server has ended (passed or
  # failed), it gets PERF_GUEST_GRACE seconds more and is then killed (a latency client whose
  # peer is gone would spin until its timeout).
  local limit=$(( $(date +%s) + PERF_GUEST_TIMEOUT + 10 ))
  while [ ! -f "$S/perf-$k.rc" ] && kill -0 $pid 2>/dev/null && [ "$(date +%s)" -lt $limit ]; do
    sleep 0.2
  done
  perf_guest_wait $k "$PERF_GUEST_GRACE"; grc=$?
  secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
  cp "$S/perf-$k.log" "$L/$id-perftest.log"
  local waited=0
  while kill -0 $pid 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
  kill $pid 2>/dev/null
  wait $pid; rc=$?
  # perftest's client could not even connect (rdma_cm failed in the guest, e.g. "Cannot assign
  # requested address" from rdma_resolve_addr under load) and our server never got past its
  # handshakes: nothing was tested, so the row runs again (at most PERF_CONNECT_RETRIES times).
  if [ "$grc" != 0 ] && [ $attempt -le "$PERF_CONNECT_RETRIES" ] \
      && grep -q 'Failed to connect through RDMA CM\|Unable to perform rdma_client function' "$L/$id-perftest.log" \
      && ! grep -q 'remote address' "$L/$id-iwarp-perf.out"; then
    local why; why=$(grep -m1 -A1 'Failed to connect through RDMA CM\|Unable to perform rdma_client' "$L/$id-perftest.log" | tr '\n' ' ' | cut -c1-160)
    cp "$L/$id-perftest.log" "$L/$id-attempt$attempt-perftest.log"
    echo "RETRY $id: attempt $attempt: perftest's client never connected ($why); attempt $((attempt + 1))"
    retried="$retried; attempt $attempt: perftest's client never connected before any data, retried: $why"
    attempt=$((attempt + 1))
    continue
  fi
  break
  done
  perf_end "$id"
  local srqdesc=""; [ "$srq" = srq ] && srqdesc=" --use-srq"
  perf_row "$id" "siw ib_$test -R client -> iwarp-perf$srqdesc server" "$test$srqdesc" "$size" "$iters" $rc $grc \
    "$L/$id-iwarp-perf.out" "$L/$id-perftest.log" "$secs" "$mode" "$crc" "$retried"
}

perf_row() { # ID DIRECTION TEST SIZE ITERS RC_OURS RC_PERFTEST OURS_OUT PERFTEST_LOG SECS [MODE] [CRC] [NOTE]
  local id=$1 dir=$2 test=$3 size=$4 iters=$5 rc=$6 grc=$7 ours=$8 theirs=$9 secs=${10}
  local mode=${11:-client-server} crc=${12:-on} note=${13:-}
  local r1; r1=$(perf_result "$size" "$ours")
  local r2; r2=$(perf_result "$size" "$theirs")
  local what="#bytes #iter BW-peak BW-avg[MB/s] Mpps"
  case $test in *lat) what="#bytes #iter t_min t_max t_typical t_avg t_stdev 99% 99.9% [us]" ;; esac
  if [ "$rc" = 0 ] && [ "$grc" = 0 ] && { [ -n "$r1" ] || [ -n "$r2" ]; }; then
    row "$id" "$dir" "$test -s $size -n $iters" "$crc" "$mode" PASS "$secs" "$what: iwarp-perf '${r1:-(none)}', perftest '${r2:-(none)}'$note"
  else
    row "$id" "$dir" "$test -s $size -n $iters" "$crc" "$mode" FAIL "$secs" "iwarp-perf rc $rc, perftest rc $grc: $(tail -1 "${ours%.out}.err" | cut -c1-120) / $(grep -v '^ *$' "$theirs" | tail -1 | cut -c1-120)$note"
  fi
}

# run_perftest: the 44 rows (22 with CRC off, then the same 22 with CRC on) and issue 16's 8
# SRQ rows (ib_send_bw -R --use_srq at 64 B and 64 KiB, both roles, CRC off and on),
# PERF_REPEAT times (default 1; row ids get -rN when above 1), only the rows whose id matches
# ONLY when it is set.
run_perftest() {
  local rep sfx
  for rep in $(seq 1 "${PERF_REPEAT:-1}"); do
    sfx=""; [ "${PERF_REPEAT:-1}" -gt 1 ] && sfx="-r$rep"
    for t in write_bw read_bw send_bw write_lat; do
      # The issue's matrix: bandwidth at 64 B, 4 KiB and 64 KiB; write_lat at 64 B and 64 KiB.
      local sizes="64 4096 65536"
      case $t in *lat) sizes="64 65536" ;; esac
      for s in $sizes; do
        local it=1000
        [ $s = 65536 ] && it=200
        case $t in *lat) it=200 ;; esac
        for crc in off on; do
          perf_h2g $t $s $it "$sfx" $crc
          perf_g2h $t $s $it "perf-g2h-$t-$s$(perf_crc_sfx $crc)$sfx" $crc
        done
      done
    done
    for s in 64 65536; do
      local it=1000; [ $s = 65536 ] && it=200
      for crc in off on; do
        perf_h2g send_bw $s $it "$sfx" $crc srq
        perf_g2h send_bw $s $it "perf-g2h-send_bw-srq-$s$(perf_crc_sfx $crc)$sfx" $crc srq
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
