#!/bin/bash
# boot.sh - boots the siw lab's guest (build-image.sh) once under qemu, runs one job in it and
# collects what the job wrote; optionally runs a host-side command beside it.
#
#   src-it/interop/lab/boot.sh JOB.sh OUTDIR
#
# The guest sees OUTDIR as /share over 9p; JOB.sh is copied to OUTDIR/job.sh and run by
# guest-init as root in /share/out, once siw0 is up. Afterwards OUTDIR/out holds job.log, job.rc,
# ready-uptime and whatever the job wrote; OUTDIR/console.log is the guest's console and
# OUTDIR/timings.txt how long the boot took. Exit status: the job's, 3 when the guest never
# became ready, 2 on a usage error.
#
# Environment:
#   HOSTFWD   space-separated qemu hostfwd rules (host 127.0.0.1 -> guest), default
#             "tcp:127.0.0.1:7174-:7174"
#   GUESTFWD  ';'-separated guestfwd rules (guest -> host through socat), default
#             "tcp:10.0.2.100:7200-cmd:socat STDIO TCP:127.0.0.1:7200"
#   HOST_CMD  run on the host (bash -c, environment OUTDIR and SHARE_OUT=OUTDIR/out) once the
#             guest is ready; its output goes to OUTDIR/host.log. When it exits, OUTDIR/out/host.done
#             is created, which the job may wait for.
#   TIMEOUT   seconds before the guest is killed (default 300)
#   MEM, SMP  guest memory and vCPUs (default 2G, 2)
#   ACCEL     tcg (default: software emulation, works everywhere) or kvm (needs real VT-x/AMD-V)
#   DUMP      a pcap file: every frame of the guest's link (qemu's filter-dump on its netdev,
#             whole frames), i.e. the TCP segments exactly as the guest's stack gets them
#   IWARP4J_LAB_DIR  where build-image.sh put the image (default ~/.cache/iwarp4j/siw-lab)
#
# Networking is qemu's user mode with restrict=on: the guest reaches only the forwards above, and
# every forward listens on 127.0.0.1 only. The root image is opened with snapshot=on, so a run
# never changes it and runs may share it.
set -uo pipefail
IMG=${IWARP4J_LAB_DIR:-$HOME/.cache/iwarp4j/siw-lab}
job=${1:-}
OUTDIR=${2:-}
if [ -z "$job" ] || [ -z "$OUTDIR" ] || [ ! -f "$job" ]; then
  echo "usage: boot.sh JOB.sh OUTDIR" >&2
  exit 2
fi
for f in vmlinuz initrd.img root.ext4; do
  [ -s "$IMG/$f" ] || { echo "boot.sh: no $IMG/$f: run build-image.sh first" >&2; exit 3; }
done
case "${ACCEL:-tcg}" in
  tcg) accel=(-accel tcg,thread=multi,tb-size=256 -cpu max) ;;
  kvm) accel=(-accel kvm -cpu host) ;;
  *) echo "boot.sh: ACCEL is tcg or kvm" >&2; exit 2 ;;
esac
mkdir -p "$OUTDIR/out"
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -f "$OUTDIR"/out/{job.rc,job.log,ready-uptime,done-uptime,host.done}
cp "$job" "$OUTDIR/job.sh"

net="user,id=net0,restrict=on,net=10.0.2.0/24,host=10.0.2.2"
for rule in ${HOSTFWD:-tcp:127.0.0.1:7174-:7174}; do net+=",hostfwd=$rule"; done
IFS=';' read -r -a guest_rules <<< "${GUESTFWD:-tcp:10.0.2.100:7200-cmd:socat STDIO TCP:127.0.0.1:7200}"
for rule in "${guest_rules[@]}"; do [ -n "$rule" ] && net+=",guestfwd=$rule"; done

dump=()
[ -n "${DUMP:-}" ] && dump=(-object "filter-dump,id=dump0,netdev=net0,file=$DUMP,maxlen=65535")

start_ns=$(date +%s%N)
elapsed() { local ns=$(( $(date +%s%N) - start_ns )); printf '%d.%03d' $((ns / 1000000000)) $((ns / 1000000 % 1000)); }
# no_timer_check: under TCG on a starved host the kernel's IO-APIC timer check can miss its
# ticks and panic ("IO-APIC + timer doesn't work!", seen 2026-11-27 at a host load of 16).
qemu-system-x86_64 "${accel[@]}" -m "${MEM:-2G}" -smp "${SMP:-2}" \
  -nographic -no-reboot -monitor none -serial "file:$OUTDIR/console.log" \
  -kernel "$IMG/vmlinuz" -initrd "$IMG/initrd.img" \
  -append "console=ttyS0 root=/dev/vda rw init=/sbin/guest-init net.ifnames=0 panic=-1 no_timer_check quiet" \
  -drive "file=$IMG/root.ext4,format=raw,if=virtio,snapshot=on" \
  -netdev "$net" -device virtio-net-pci,netdev=net0 "${dump[@]}" \
  -virtfs "local,path=$OUTDIR,mount_tag=share,security_model=none,id=share" \
  > "$OUTDIR/qemu.log" 2>&1 &
vm=$!
host=""
stop_all() {
  kill "$vm" 2>/dev/null
  [ -n "$host" ] && kill "$host" 2>/dev/null
  return 0
}
trap stop_all EXIT INT TERM
echo "[boot] qemu pid $vm, run folder $OUTDIR"

deadline=$(( $(date +%s) + ${TIMEOUT:-300} ))
ready=""
while kill -0 "$vm" 2>/dev/null; do
  if [ -z "$ready" ] && [ -f "$OUTDIR/out/ready-uptime" ]; then
    ready=$(elapsed)
    echo "[boot] guest ready after $ready s"
    if [ -n "${HOST_CMD:-}" ]; then
      (export OUTDIR SHARE_OUT="$OUTDIR/out"; bash -c "$HOST_CMD"; touch "$OUTDIR/out/host.done") \
        > "$OUTDIR/host.log" 2>&1 &
      host=$!
    fi
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "[boot] TIMEOUT after ${TIMEOUT:-300} s: killing the guest"
    kill "$vm"; sleep 2; kill -9 "$vm" 2>/dev/null
    break
  fi
  sleep 0.2
done
wait "$vm" 2>/dev/null
if [ -n "$host" ]; then
  # The guest is gone: give the host side a moment to write its results, then stop it.
  for _ in $(seq 25); do kill -0 "$host" 2>/dev/null || break; sleep 0.2; done
  kill "$host" 2>/dev/null
  wait "$host" 2>/dev/null
fi
trap - EXIT INT TERM
{
  echo "wall_s=$(elapsed)"
  [ -n "$ready" ] && echo "wall_to_ready_s=$ready"
  [ -f "$OUTDIR/out/ready-uptime" ] && echo "guest_uptime_ready_s=$(cat "$OUTDIR/out/ready-uptime")"
  [ -f "$OUTDIR/out/done-uptime" ] && echo "guest_uptime_done_s=$(cat "$OUTDIR/out/done-uptime")"
} > "$OUTDIR/timings.txt"
cat "$OUTDIR/timings.txt"
[ -f "$OUTDIR/out/ready-uptime" ] || { echo "[boot] the guest never became ready; see $OUTDIR/console.log"; exit 3; }
rc=$(cat "$OUTDIR/out/job.rc" 2>/dev/null || echo 1)
echo "[boot] job exit status $rc; log $OUTDIR/out/job.log"
exit "$rc"
