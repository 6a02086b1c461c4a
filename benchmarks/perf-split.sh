#!/usr/bin/env bash
# Where one contender's decisions spend the machine's CPU, kernel and user time apart: runs one throughput scenario
# with one contender for a single 25-s round and records the whole machine with Linux perf for 10 s of it, then prints
# each thread group's share of all CPU samples (idle included: "swapper"), split by where the time went: the kernel,
# the JIT-compiled Java code, the JVM itself, libc (e.g. pthread waits and wake-ups), Redis's own code.
# See docs/profiling.md ("Where the CPU of one decision goes").
#
# Usage: benchmarks/perf-split.sh contender [scenario (many-keys)]
#   e.g. benchmarks/perf-split.sh ours; benchmarks/perf-split.sh ideal; benchmarks/perf-split.sh ours-async
# Needs perf (linux-perf) and the right to record every CPU (root, or kernel.perf_event_paranoid <= -1).
set -euo pipefail
cd "$(dirname "$0")/.."
contender="$1"; scenario="${2:-many-keys}"
command -v perf >/dev/null || { echo "perf is not installed (Debian: apt-get install linux-perf)" >&2; exit 1; }
log="$(mktemp)"; data="$(mktemp)"
trap 'rm -f "$log" "$data"' EXIT
benchmarks/run.sh throughput "$scenario" --contenders="$contender" --rounds=1 --seconds=25 --warmup=8 >"$log" 2>&1 &
runner=$!
until grep -q "warm-up" "$log"; do
  kill -0 "$runner" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 1
done
sleep 3
perf record -F 499 -a -g -o "$data" -- sleep 10 >/dev/null 2>&1
wait "$runner"
grep " round " "$log" | sed 's/^[a-z-]*: //'
echo "share of all CPU samples (2 cores = 100%), by thread group and where the time went:"
perf report -i "$data" --no-children --sort comm,dso --stdio -g none 2>/dev/null | grep -v '^#' | python3 -c '
import collections, re, sys
shares = collections.Counter()
for line in sys.stdin:
    m = re.match(r"\s*([\d.]+)%\s+(\S+(?: \S+)*?)\s{2,}(.*\S)", line)
    if not m:
        continue
    share, thread, where = float(m.group(1)), re.sub(r"\d+", "N", m.group(2)), m.group(3)
    where = ("kernel" if "kernel" in where else "JIT (Java)" if "JIT" in where else "redis" if "redis" in where
             else where)
    shares[(thread, where)] += share
threads = collections.Counter()
for (thread, where), share in shares.items():
    threads[thread] += share
for thread, total in threads.most_common(8):
    parts = ", ".join("%s %.1f%%" % (w, s) for (t, w), s in sorted(shares.items(), key=lambda i: -i[1])
                      if t == thread and s >= 0.3)
    print("%6.1f%%  %-16s %s" % (total, thread, parts))
'
