#!/usr/bin/env python3
"""Per-message counts for the many-QP target: syscalls by type and CPU per thread, for iwarp4j
1000 QPs at depth 1 against 1 QP at depth 128, and raw Netty 1000 connections at depth 1 against
1 connection at depth 128, interleaved (A B C D, D C B A, ...).

usage: many-qp-profile.py [--jar JAR] [--rounds N] [--qps N] [--out DIR]

Each configuration is one JMH fork: 10 x 1 s warm-up, 2 x 5 s measured. During the first
measured iteration (from 0.3 s after it starts, for 4.5 s) it reads every thread's utime+stime
from /proc/PID/task/TID/stat and counts syscalls per thread with `perf stat --per-thread` on the
syscalls:sys_enter_* tracepoints (counted in the kernel: no ptrace, unlike strace or perf trace,
which slowed the 1000-QP fork 2-3x). Per message = count / (that iteration's rate x window).
CPU per message is what a loaded machine disturbs least (time a thread waits for a core is not
counted); rates and ratios need a quiet machine. Needs root (or perf_event_paranoid <= -1).
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import time

SYSCALLS = ["writev", "write", "sendmsg", "sendto", "recvfrom", "read", "recvmsg",
            "epoll_pwait2", "epoll_wait", "epoll_pwait", "futex"]
# The suite's Netty settings (NettyTuning) and a heap that holds 1000 connections, for all four.
JVM = "-Xms1g -Xmx1g -Dio.netty.recycler.chunkSize=1024 -Dio.netty.leakDetection.samplingInterval=4096"
WINDOW = 4.5


def configs(qps):
    v = "^io.iwarp4j.benchmarks.suite.VerbsBandwidthBenchmark.message$"
    n = "^io.iwarp4j.benchmarks.suite.NettyBandwidthBenchmark.message$"
    vp = ["-p", "op=WRITE", "-p", "size=65536", "-p", "crc=true"]
    np_ = ["-p", "mode=PUSH", "-p", "size=65536"]
    return [("iwarp4j qps=1 depth=128", [v] + vp + ["-p", "qps=1", "-p", "depth=128"]),
            ("iwarp4j qps=%d depth=1" % qps, [v] + vp + ["-p", "qps=%d" % qps, "-p", "depth=1"]),
            ("netty conns=1 depth=128", [n] + np_ + ["-p", "conns=1", "-p", "depth=128"]),
            ("netty conns=%d depth=1" % qps, [n] + np_ + ["-p", "conns=%d" % qps, "-p", "depth=1"])]


def cpu_ticks(pid):
    ticks = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                name = f.read().strip()
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks[tid] = (name, int(fields[11]) + int(fields[12]))
        except (OSError, IndexError):
            pass
    return ticks


def run_one(jar, args, out):
    cmd = ["java", "-jar", jar, "jmh"] + args + ["-f", "1", "-wi", "10", "-w", "1s", "-i", "2",
                                                  "-r", "5s", "-jvmArgsAppend", JVM]
    log = open(out + ".out", "w")
    parent = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    while True:
        if parent.poll() is not None:
            raise RuntimeError("JMH ended early: see " + out + ".out")
        with open(out + ".out") as f:
            if re.search(r"^Iteration   1:", f.read(), re.M):
                break
        time.sleep(0.1)
    child = int(subprocess.check_output(["pgrep", "-P", str(parent.pid), "java"]).split()[0])
    time.sleep(0.3)
    t0, c0 = time.time(), cpu_ticks(child)
    events = ",".join("syscalls:sys_enter_" + s for s in SYSCALLS)
    subprocess.run(["perf", "stat", "-x,", "--per-thread", "-e", events, "-p", str(child),
                    "-o", out + ".stat", "--", "sleep", str(WINDOW)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t1, c1 = time.time(), cpu_ticks(child)
    parent.wait()
    log.close()
    with open(out + ".out") as f:
        rates = [float(x.replace(",", "")) for x in
                 re.findall(r"^Iteration\s+\d+:\s+([\d.,]+) ops/s", f.read(), re.M)]
    msgs = rates[0] * (t1 - t0)
    hz = os.sysconf("SC_CLK_TCK")
    cpu = collections.Counter()
    for tid, (name, t) in c1.items():
        d = t - c0.get(tid, (name, 0))[1]
        if d > 0:
            cpu[re.sub(r"#\d+$", "#n", name)] += d
    calls = collections.defaultdict(collections.Counter)
    with open(out + ".stat") as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) > 3 and p[1].isdigit() and p[1] != "0":
                calls[re.sub(r"-\d+$", "", p[0])][p[3].replace("syscalls:sys_enter_", "")] += \
                    int(p[1])
    return rates, msgs, {k: v * 1e6 / hz / msgs for k, v in cpu.items()}, \
        {t: {s: n / msgs for s, n in c.items()} for t, c in calls.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jar", default="benchmarks/target/iwarp4j-benchmarks.jar")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--qps", type=int, default=1000)
    ap.add_argument("--out", default="/tmp/many-qp-profile")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    print(subprocess.check_output(["uptime"], text=True).strip())
    results = collections.defaultdict(list)
    for r in range(a.rounds):
        order = configs(a.qps) if r % 2 == 0 else list(reversed(configs(a.qps)))
        for name, args in order:
            res = run_one(a.jar, args, os.path.join(a.out, "r%d-%s" % (r, re.sub(r"\W+", "_",
                                                                                  name))))
            results[name].append(res)
            rates, msgs, cpu, calls = res
            print("round %d  %-28s rate %s msg/s  CPU %.1f us/msg" % (
                r, name, "/".join("%.0f" % x for x in rates), sum(cpu.values())))
            for t, us in sorted(cpu.items(), key=lambda kv: -kv[1])[:5]:
                print("    cpu   %-24s %6.2f us/msg" % (t, us))
            for t, c in sorted(calls.items(), key=lambda kv: -sum(kv[1].values()))[:4]:
                print("    calls %-24s %s" % (t, ", ".join(
                    "%s %.3f" % kv for kv in sorted(c.items(), key=lambda kv: -kv[1]))))
            sys.stdout.flush()
    names = [n for n, _ in configs(a.qps)]
    for base, many in ((names[0], names[1]), (names[2], names[3])):
        ratios = [m[0][0] / b[0][0] for b, m in zip(results[base], results[many])]
        print("%s / %s, first measured iteration, per round: %s" % (
            many, base, ", ".join("%.2f" % x for x in ratios)))
    print(subprocess.check_output(["uptime"], text=True).strip())


if __name__ == "__main__":
    main()
