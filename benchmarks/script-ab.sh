#!/usr/bin/env bash
# A/B of two rate limit scripts' cost inside Redis, without a JVM: redis-benchmark sends EVALSHA of script A, then of
# script B (alternating which goes first), 64 connections, 16 calls in flight each, 10k keys; per run it reads Redis's
# usec_per_call (execution only) and the Redis process's CPU time per call (execution plus networking). Prints each
# pair and the median of the per-pair ratios B/A, which moves far less with other load on the machine than either
# number alone.
#
# Usage: benchmarks/script-ab.sh A.lua B.lua [checks (1)] [pairs (12)] [requests per call (1)]
# Both scripts receive ratelimit.lua's arguments (KEYS: one key per check; ARGV: '' '' then per check 6 interval
# capacity 0 cost shadow maxWait; with more than one request per call, the batch layout: every request's checks, then
# the number of checks of each request), or, when either script is named gcra.lua, gcra.lua's compact layout
# (decision 136: '' -1 C, one spec 'interval capacity cost shadow', then the spec of each of a request's C checks;
# -1 says the call's keys are distinct, as the store says when they are, decision 137: keys drawn at random repeat in
# about 2% of calls of 20 requests, which only changes what the benchmark's state holds),
# e.g. compare two versions of gcra.lua, or gcra.lua with the floor scripts of benchmarks/script-floor.sh.
# With requests per call R > 1 the per-call numbers cover R decisions: divide by R for a decision's cost.
# A script named minimal (any path ending in gcra-minimal.lua) is sent its own arguments instead (KEYS as above, ARGV
# interval burst) and one request per call, whatever R says: the ideal client's call, to compare a batch against.
set -euo pipefail
a="$1"; b="$2"; checks="${3:-1}"; pairs="${4:-12}"; requests="${5:-1}"
port="${SCRIPT_AB_PORT:-6399}"
redis-server --port "$port" --save "" --appendonly no --daemonize yes --pidfile "/tmp/script-ab-$port.pid" >/dev/null
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true' EXIT
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done
args=()
for q in $(seq "$requests"); do for i in $(seq "$checks"); do args+=("ab:{k:__rand_int__}$i"); done; done
if [[ "$a" == */gcra.lua || "$a" == gcra.lua || "$b" == */gcra.lua || "$b" == gcra.lua ]]; then
  # gcra.lua's compact layout (decision 136): time, one spec, every request of the same shape ($checks checks), the
  # spec (interval capacity cost shadow), the shape's spec per check; -1: one spec, the keys distinct (decision 137)
  args+=("" -1 "$checks" 1 1000000 1 0)
  for i in $(seq "$checks"); do args+=(1); done
else
  args+=("" "")
  for q in $(seq "$requests"); do for i in $(seq "$checks"); do args+=(6 1 1000000 0 1 0 0); done; done
  if (( requests > 1 )); then for q in $(seq "$requests"); do args+=("$checks"); done; fi
fi
minimal_args=()
for i in $(seq "$checks"); do minimal_args+=("ab:{m:__rand_int__}$i"); done
minimal_args+=(1 1000000)
sha_a="$(redis-cli -p "$port" script load "$(cat "$a")")"
sha_b="$(redis-cli -p "$port" script load "$(cat "$b")")"
cpu() { redis-cli -p "$port" info cpu | awk -F: '/used_cpu_(user|sys):/ { s += $2 } END { printf "%.6f", s }'; }
one() {
  local sha="$1" file="$2" keys calls=100000
  redis-cli -p "$port" config resetstat >/dev/null
  local before after usec
  before="$(cpu)"
  if [[ "$file" == *gcra-minimal.lua ]]; then
    redis-benchmark -p "$port" -c 64 -n "$calls" -r 10000 -P 16 -q EVALSHA "$sha" "$checks" "${minimal_args[@]}" \
      >/dev/null 2>&1
  else
    calls=$(( 100000 / requests ))
    redis-benchmark -p "$port" -c 64 -n "$calls" -r 10000 -P 16 -q EVALSHA "$sha" $(( checks * requests )) \
      "${args[@]}" >/dev/null 2>&1
  fi
  after="$(cpu)"
  usec="$(redis-cli -p "$port" info commandstats | grep cmdstat_evalsha | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/')"
  awk -v u="$usec" -v b="$before" -v a="$after" -v n="$calls" 'BEGIN { printf "%s %.2f", u, (a - b) * 1e6 / n }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'; }
echo "A usec/call, A cpu µs/call, B usec/call, B cpu µs/call ($checks check(s), $requests request(s) per call" \
  "unless minimal, A=$a, B=$b)"
results="$(mktemp)"
for p in $(seq "$pairs"); do
  if (( p % 2 )); then ra="$(one "$sha_a" "$a")"; rb="$(one "$sha_b" "$b")"
  else rb="$(one "$sha_b" "$b")"; ra="$(one "$sha_a" "$a")"; fi
  echo "$ra $rb" | tee -a "$results"
done
echo "median B/A: usec_per_call $(awk '{ print $3 / $1 }' "$results" | median)," \
  "cpu per call $(awk '{ print $4 / $2 }' "$results" | median) ($pairs pairs)"
rm -f "$results"
