#!/bin/bash
# host-side.sh - the host's half of the NVMe-oF interop (run-nvmeof.sh; boot.sh runs it as
# HOST_CMD once the guest is ready, with SHARE_OUT the guest's /share/out). Step 1: the Java host
# (`nvmeof exercise`) against the guest's nvmet-rdma through the hostfwd on H2G_PORT. Step 2: the
# Java target (`nvmeof serve`) on G2H_PORT, which the guest reaches through a guestfwd, until the
# guest's kernel host is done.
set -u
say() { echo "[host $(date -u +%H:%M:%S)] $*"; }
wait_file() { # FILE SECONDS
  local n=$(( $2 * 5 )); while [ ! -e "$1" ] && [ $n -gt 0 ]; do sleep 0.2; n=$((n - 1)); done
  [ -e "$1" ]
}
JAVA=${JAVA:-java}
if wait_file "$SHARE_OUT/nvmet-ready" 900; then
  say "step 1: nvmeof exercise 127.0.0.1 $H2G_PORT (${BYTES:-8M}, idle ${IDLE:-30} s)"
  t0=$(date +%s)
  "$JAVA" -cp "$CP" io.iwarp4j.examples.nvmeof.cli.NvmeofMain exercise 127.0.0.1 "$H2G_PORT" \
    --nqn nqn.2026-11.io.iwarp4j:siw-nvmet --bytes "${BYTES:-8M}" --idle "${IDLE:-30}" \
    --seed "${SEED:-$(date +%s)}" $HOST_OPTS > "$OUTDIR/java-host.log" 2>&1
  echo $? > "$SHARE_OUT/java-host.rc"
  say "step 1: exit $(cat "$SHARE_OUT/java-host.rc") in $(( $(date +%s) - t0 )) s"
  cat "$OUTDIR/java-host.log"
  if [ -n "${BENCH_SECONDS:-}" ] && [ "$(cat "$SHARE_OUT/java-host.rc")" = 0 ]; then
    "$JAVA" -cp "$CP" io.iwarp4j.examples.nvmeof.cli.NvmeofMain bench 127.0.0.1 "$H2G_PORT" \
      --nqn nqn.2026-11.io.iwarp4j:siw-nvmet --seconds "$BENCH_SECONDS" $HOST_OPTS \
      > "$OUTDIR/java-bench.log" 2>&1
    say "bench: exit $?"; cat "$OUTDIR/java-bench.log"
  fi
else
  say "step 1: the guest's nvmet never became ready"
  echo 1 > "$SHARE_OUT/java-host.rc"
fi
touch "$SHARE_OUT/java-host.done"

say "step 2: nvmeof serve on 127.0.0.1:$G2H_PORT"
"$JAVA" -cp "$CP" io.iwarp4j.examples.nvmeof.cli.NvmeofMain serve --bind 127.0.0.1 \
  --port "$G2H_PORT" --size 64M $TARGET_OPTS > "$OUTDIR/java-target.log" 2>&1 &
target=$!
for _ in $(seq 300); do grep -q listening "$OUTDIR/java-target.log" && break; sleep 0.2; done
cat "$OUTDIR/java-target.log"
touch "$SHARE_OUT/java-target-ready"
wait_file "$SHARE_OUT/linux-host.done" 1200 || say "step 2: the guest's host never finished"
kill -TERM $target; wait $target
say "step 2: target stopped (exit $?)"
