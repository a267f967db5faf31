#!/bin/bash
# guest-job.sh - the siw guest's half of the NVMe-oF interop (run-nvmeof.sh), run by guest-init
# in /share/out. Step 1: Linux nvmet-rdma on siw0 (configfs, a memory-backed null_blk namespace)
# for the Java host, which writes java-host.done when it is finished. Step 2: the kernel's
# nvme-rdma host connects to the Java target (a guestfwd to the host) through /dev/nvme-fabrics,
# writes 8 MiB of random data at offsets with O_DIRECT, reads it back, compares, idles 12 s
# (Keep Alive), reads and compares again, disconnects.
# Either step fails on WARNING, BUG, Oops or Call Trace in the kernel log. Writes results.tsv.
set -u
NQN_LINUX=nqn.2026-11.io.iwarp4j:siw-nvmet
NQN_JAVA=${NQN_JAVA:-nqn.2026-11.io.iwarp4j:nvmeof-example}
CFG=/sys/kernel/config/nvmet
say() { echo "[guest $(cut -d' ' -f1 /proc/uptime)] $*"; }
row() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> results.tsv; say "ROW $1 $2 $3"; }
wait_file() { # FILE SECONDS
  local n=$(( $2 * 5 )); while [ ! -e "$1" ] && [ $n -gt 0 ]; do sleep 0.2; n=$((n - 1)); done
  [ -e "$1" ]
}
# The kernel log since the last call, saved per step; fails on a warning, BUG, oops or trace.
kernel_log_clean() { # STEP
  dmesg -c > "dmesg-$1.txt" 2>&1
  # Besides a warning or worse: siw's CRC error (docs/interop.md, siw bug 1), the host's error
  # recovery and reconnect, nvmet's keep-alive expiry, a failed command or connection.
  if grep -E 'WARNING|BUG|Oops|Call Trace|general protection|crc error|error recovery|Reconnecting|expired|failed|rejected|timeout' \
      "dmesg-$1.txt"; then
    return 1
  fi
  return 0
}
rm -f results.tsv
uname -r > guest-kernel.txt
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
dmesg -c > dmesg-boot.txt

# ---- 1. Java host -> Linux nvmet-rdma ---------------------------------------------------------
t0=$(date +%s)
ok=1
modprobe null_blk nr_devices=1 memory_backed=1 gb=1 || ok=0
modprobe -a nvmet nvmet-rdma || ok=0
# nvmet-rdma's debug lines say when it frees a queue: the evidence that the Java host's
# disconnect ended both of its queues on the target's side (Debian has dynamic debug).
dyndbg=/sys/kernel/debug/dynamic_debug/control
echo 'module nvmet_rdma +p' > $dyndbg 2>/dev/null || say "no dynamic debug: queue release unchecked"
sub=$CFG/subsystems/$NQN_LINUX
mkdir "$sub" && echo 1 > "$sub/attr_allow_any_host" \
  && mkdir "$sub/namespaces/1" && echo /dev/nullb0 > "$sub/namespaces/1/device_path" \
  && echo 1 > "$sub/namespaces/1/enable" || ok=0
port=$CFG/ports/1
mkdir "$port" && echo rdma > "$port/addr_trtype" && echo ipv4 > "$port/addr_adrfam" \
  && echo 10.0.2.15 > "$port/addr_traddr" && echo 4420 > "$port/addr_trsvcid" \
  && ln -s "$sub" "$port/subsystems/$NQN_LINUX" || ok=0
say "nvmet configured (ok=$ok): $(cat /sys/block/nullb0/size 2>/dev/null) sectors on nullb0"
touch nvmet-ready
if ! wait_file java-host.done 1200; then
  say "the Java host never finished"
  ok=0
fi
# Both queues (admin, I/O) freed by the target after the host's disconnect, before teardown.
if [ -w $dyndbg ]; then
  n=50; while [ "$(dmesg | grep -c 'nvmet_rdma: freeing queue')" -lt 2 ] && [ $n -gt 0 ]; do
    sleep 0.2; n=$((n - 1)); done
  freed=$(dmesg | grep -c 'nvmet_rdma: freeing queue')
  say "nvmet-rdma freed $freed queue(s) after the Java host's disconnect"
  [ "$freed" -ge 2 ] || ok=0
  echo 'module nvmet_rdma -p' > $dyndbg
fi
# Tear the target down: a controller still alive would keep the subsystem busy.
rm -f "$port/subsystems/$NQN_LINUX"; rmdir "$port"
echo 0 > "$sub/namespaces/1/enable"; rmdir "$sub/namespaces/1"; rmdir "$sub"
modprobe -r nvmet-rdma nvmet || { say "nvmet modules busy"; ok=0; }
kernel_log_clean java-host || { say "kernel warnings in step 1"; ok=0; }
[ "$(cat java-host.rc 2>/dev/null)" = 0 ] || ok=0
row java-host-to-nvmet "$([ $ok = 1 ] && echo PASS || echo FAIL)" "$(( $(date +%s) - t0 )) s"

# ---- 2. Linux nvme-rdma host -> Java target ---------------------------------------------------
t0=$(date +%s)
ok=1
if ! wait_file java-target-ready 600; then
  say "the Java target never came up"; ok=0
fi
modprobe -a nvme-fabrics nvme-rdma || ok=0
ctrl=""
if [ $ok = 1 ]; then
  exec 3<>/dev/nvme-fabrics
  if printf 'transport=rdma,traddr=10.0.2.100,trsvcid=4420,nqn=%s,hostnqn=nqn.2014-08.org.nvmexpress:uuid:%s' \
      "$NQN_JAVA" "$(cat /proc/sys/kernel/random/uuid)" >&3; then
    read -r reply <&3
    say "connected: $reply"
    ctrl=nvme$(echo "$reply" | sed -n 's/.*instance=\([0-9]*\).*/\1/p')
  else
    say "connect failed"; ok=0
  fi
  exec 3>&-
fi
dev=/dev/${ctrl}n1
if [ -n "$ctrl" ] && wait_file "$dev" 60 && wait_file "/sys/block/${ctrl}n1/size" 10; then
  sectors=$(cat "/sys/block/${ctrl}n1/size")
  say "$dev: $sectors sectors of 512 octets; $(cat /sys/class/nvme/$ctrl/model 2>/dev/null)"
  dd if=/dev/urandom of=/tmp/data bs=1M count=8 status=none
  # 8 MiB in four 2 MiB pieces at scattered offsets (MiB), written and read back with O_DIRECT.
  offs="1 13 29 50"
  i=0
  for off in $offs; do
    dd if=/tmp/data of="$dev" bs=1M count=2 skip=$((i * 2)) seek=$off oflag=direct conv=notrunc \
      status=none || { say "write at $off MiB failed"; ok=0; }
    i=$((i + 1))
  done
  i=0; : > /tmp/back
  for off in $offs; do
    dd if="$dev" of=/tmp/back bs=1M count=2 skip=$off seek=$((i * 2)) iflag=direct conv=notrunc \
      status=none || { say "read at $off MiB failed"; ok=0; }
    i=$((i + 1))
  done
  if cmp /tmp/data /tmp/back; then
    say "8 MiB read back equal: $(sha256sum < /tmp/data | cut -c1-16)"
  else
    say "MISMATCH: $(cmp -l /tmp/data /tmp/back | wc -l) octets differ"; ok=0
  fi
  # Idle: the kernel's Keep Alive must hold the association (the Java target tears down a
  # silent host after KATO); then the data once more.
  sleep "${IDLE2:-12}"
  : > /tmp/back2; i=0
  for off in $offs; do
    dd if="$dev" of=/tmp/back2 bs=1M count=2 skip=$off seek=$((i * 2)) iflag=direct \
      conv=notrunc status=none || { say "read at $off MiB after the idle period failed"; ok=0; }
    i=$((i + 1))
  done
  cmp /tmp/data /tmp/back2 && say "after ${IDLE2:-12} s idle: read back equal" \
    || { say "MISMATCH after the idle period"; ok=0; }
else
  say "no block device $dev"; ok=0
fi
if [ -n "$ctrl" ] && [ -e /sys/class/nvme/$ctrl ]; then
  echo 1 > /sys/class/nvme/$ctrl/delete_controller
  n=100; while [ -e /sys/class/nvme/$ctrl ] && [ $n -gt 0 ]; do sleep 0.2; n=$((n - 1)); done
  [ -e /sys/class/nvme/$ctrl ] && { say "$ctrl still there after delete_controller"; ok=0; }
fi
modprobe -r nvme-rdma || { say "nvme-rdma busy"; ok=0; }
kernel_log_clean linux-host || { say "kernel warnings in step 2"; ok=0; }
row linux-host-to-java-target "$([ $ok = 1 ] && echo PASS || echo FAIL)" "$(( $(date +%s) - t0 )) s"
touch linux-host.done
grep -q FAIL results.tsv && exit 1
exit 0
