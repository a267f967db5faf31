#!/bin/bash
# runner.sh - guest side of the iwarp4j interop suite (run by lab/guest-init as /share/job.sh,
# cwd /share/out). A command queue over the 9p share: the host writes cmd-N.sh (atomically,
# via rename), this loop runs it and writes cmd-N.log and cmd-N.rc; it stops when the host
# writes host.done (lab/boot.sh does that when the host side exits). Every command is bounded by
# a timeout. Background jobs (rping -s) are started by the commands themselves.
mount -t debugfs none /sys/kernel/debug 2>/dev/null
dmesg -n 1
{ uname -r; dpkg-query -W -f='${Package} ${Version}\n' rdma-core rdmacm-utils perftest ibverbs-providers 2>/dev/null; } > guest-versions.txt
touch runner-ready
i=1
while [ ! -f host.done ]; do
  if [ -f "cmd-$i.sh" ]; then
    timeout "${CMD_TIMEOUT:-600}" bash "cmd-$i.sh" > "cmd-$i.log" 2>&1
    echo $? > "cmd-$i.rc.tmp"; mv "cmd-$i.rc.tmp" "cmd-$i.rc"
    i=$((i + 1))
  else
    sleep 0.1
  fi
done
dmesg > dmesg.txt
grep -i -E "siw|iwarp" dmesg.txt | tail -40
exit 0
