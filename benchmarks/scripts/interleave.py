#!/usr/bin/env python3
"""Runs JMH variants interleaved (A B A B ...) and reports the median of per-round ratios.

The 2-vCPU machines this project is measured on flip between two speed modes from minute to
minute, so a ratio only means something when both variants run in the same time window. Each
round runs every variant once, each in its own short JMH fork, and the ratio of each variant to
the baseline is taken within the round.

usage: interleave.py JAR BENCHMARK_REGEX PARAM BASELINE VARIANT[,VARIANT...] ROUNDS [JMH args...]
  e.g. interleave.py benchmarks/target/iwarp4j-benchmarks.jar 'FpduCodecBenchmark.roundTrip' \
         codec plain mpa-nocrc,mpa-crc 4 -p size=64
Writes a JSON summary to stdout's last line (prefixed with 'JSON ').
"""
import json
import statistics
import subprocess
import sys
import tempfile


def run(jar, bench, param, value, extra):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = ["java", "-jar", jar, "jmh", bench, "-p", "%s=%s" % (param, value),
               "-f", "1", "-wi", "2", "-i", "3", "-w", "1s", "-r", "1s",
               "-rf", "json", "-rff", out.name] + extra
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        data = json.load(open(out.name))
    if len(data) != 1:
        raise SystemExit("expected one benchmark result for %s=%s, got %d: narrow the regex or add -p"
                         % (param, value, len(data)))
    return data[0]["primaryMetric"]["score"], data[0]["primaryMetric"]["scoreUnit"]


def main():
    if len(sys.argv) < 7:
        raise SystemExit(__doc__)
    jar, bench, param, base, variants, rounds = sys.argv[1:7]
    extra = sys.argv[7:]
    variants = variants.split(",")
    ratios = {v: [] for v in variants}
    scores = {v: [] for v in [base] + variants}
    unit = None
    for r in range(int(rounds)):
        order = [base] + variants if r % 2 == 0 else variants + [base]
        got = {}
        for v in order:
            got[v], unit = run(jar, bench, param, v, extra)
            scores[v].append(got[v])
        for v in variants:
            ratios[v].append(got[v] / got[base])
        print("round %d: %s" % (r + 1, ", ".join("%s=%.4g" % (k, got[k]) for k in [base] + variants)),
              flush=True)
    summary = {"benchmark": bench, "extra": extra, "unit": unit, "baseline": base,
               "median_score": {v: statistics.median(s) for v, s in scores.items()},
               "ratio": {v: {"median": statistics.median(x), "min": min(x), "max": max(x)}
                         for v, x in ratios.items()}}
    for v, x in summary["ratio"].items():
        print("%s / %s: median %.3f (min %.3f, max %.3f) over %d rounds"
              % (v, base, x["median"], x["min"], x["max"], int(rounds)))
    print("JSON " + json.dumps(summary))


if __name__ == "__main__":
    main()
