#!/usr/bin/env bash
# A/B of two rate limit scripts' cost inside Redis, without a JVM: redis-benchmark sends EVALSHA of script A, then of
# script B (alternating which goes first), 64 connections, 16 calls in flight each, 10k keys; per run it reads Redis's
# usec_per_call (execution only) and the Redis process's CPU time per call (execution plus networking). Prints each
# pair and the median of the per-pair ratios B/A, which moves far less with other load on the machine than either
# number alone.
#
# Usage: benchmarks/script-ab.sh A.lua B.lua [checks (1|3)] [pairs (12)]
# Both scripts receive gcra.lua's arguments (KEYS: one key per check; ARGV: '' '' then per check 6 interval capacity
# 0 cost shadow), e.g. compare gcra.lua with the minimal script of the benchmarks (which reads only ARGV[1], ARGV[2]:
# pass a copy that reads ARGV[4] and ARGV[5]), or two versions of gcra.lua.
set -euo pipefail
a="$1"; b="$2"; checks="${3:-1}"; pairs="${4:-12}"
port=6399
redis-server --port "$port" --save "" --appendonly no --daemonize yes --pidfile "/tmp/script-ab-$port.pid" >/dev/null
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true' EXIT
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done
args=()
for i in $(seq "$checks"); do args+=("ab:{k:__rand_int__}$i"); done
args+=("" "")
for i in $(seq "$checks"); do args+=(6 1 1000000 0 1 0); done
sha_a="$(redis-cli -p "$port" script load "$(cat "$a")")"
sha_b="$(redis-cli -p "$port" script load "$(cat "$b")")"
cpu() { redis-cli -p "$port" info cpu | awk -F: '/used_cpu_(user|sys):/ { s += $2 } END { printf "%.6f", s }'; }
one() {
  redis-cli -p "$port" config resetstat >/dev/null
  local before after usec
  before="$(cpu)"
  redis-benchmark -p "$port" -c 64 -n 100000 -r 10000 -P 16 -q EVALSHA "$1" "$checks" "${args[@]}" >/dev/null 2>&1
  after="$(cpu)"
  usec="$(redis-cli -p "$port" info commandstats | grep cmdstat_evalsha | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/')"
  awk -v u="$usec" -v b="$before" -v a="$after" 'BEGIN { printf "%s %.2f", u, (a - b) * 1e6 / 100000 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'; }
echo "A usec/call, A cpu µs/call, B usec/call, B cpu µs/call ($checks check(s), A=$a, B=$b)"
results="$(mktemp)"
for p in $(seq "$pairs"); do
  if (( p % 2 )); then ra="$(one "$sha_a")"; rb="$(one "$sha_b")"; else rb="$(one "$sha_b")"; ra="$(one "$sha_a")"; fi
  echo "$ra $rb" | tee -a "$results"
done
echo "median B/A: usec_per_call $(awk '{ print $3 / $1 }' "$results" | median)," \
  "cpu per call $(awk '{ print $4 / $2 }' "$results" | median) ($pairs pairs)"
rm -f "$results"
