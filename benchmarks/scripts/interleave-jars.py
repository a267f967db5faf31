#!/usr/bin/env python3
"""Runs JMH variants from different jars (e.g. two commits) interleaved, A B A B, and reports
the median of per-round ratios to the first variant.

Each round runs every variant once, each in its own short JMH fork (-f 1 -wi 2 -i 3 -w 1s -r 1s),
in reverse order every other round; a ratio is taken within a round (see docs/benchmarks.md on
why: these machines change speed from minute to minute).

usage: interleave-jars.py ROUNDS "LABEL=JAR|BENCHMARK_REGEX|JMH ARGS" ...
  e.g. interleave-jars.py 4 \\
         "netty=new.jar|^io.iwarp4j.benchmarks.suite.NettyBandwidthBenchmark.message$|-p mode=PUSH -p size=64 -p depth=128 -p conns=1" \\
         "old=old.jar|^io.iwarp4j.benchmarks.suite.VerbsBandwidthBenchmark.message$|-p op=SEND -p size=64 -p depth=128 -p crc=false -p qps=1" \\
         "new=new.jar|^io.iwarp4j.benchmarks.suite.VerbsBandwidthBenchmark.message$|-p op=SEND -p size=64 -p depth=128 -p crc=false -p qps=1"
"""
import json
import statistics
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    rounds = int(sys.argv[1])
    variants = []
    for a in sys.argv[2:]:
        head, bench, params = a.split("|")
        label, jar = head.split("=", 1)
        variants.append((label, jar, bench, params.split()))
    scores = {v[0]: [] for v in variants}
    for r in range(rounds):
        order = variants if r % 2 == 0 else variants[::-1]
        got = {}
        for label, jar, bench, params in order:
            with tempfile.NamedTemporaryFile(suffix=".json") as out:
                cmd = ["java", "-jar", jar, "jmh", bench, "-f", "1", "-wi", "2", "-i", "3",
                       "-w", "1s", "-r", "1s", "-rf", "json", "-rff", out.name] + params
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
                data = json.load(open(out.name))
            if len(data) != 1:
                raise SystemExit("%s: expected one result, got %d: narrow the regex or add -p"
                                 % (label, len(data)))
            got[label] = data[0]["primaryMetric"]["score"]
            scores[label].append(got[label])
        print("round %d: %s" % (r + 1, ", ".join("%s=%.4g" % (k, v) for k, v in got.items())),
              flush=True)
    base = variants[0][0]
    for label, *_ in variants[1:]:
        ratios = [a / b for a, b in zip(scores[label], scores[base])]
        print("%s / %s: median %.3f (min %.3f, max %.3f) over %d rounds"
              % (label, base, statistics.median(ratios), min(ratios), max(ratios), rounds))


if __name__ == "__main__":
    main()
