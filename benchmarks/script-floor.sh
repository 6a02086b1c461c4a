#!/usr/bin/env bash
# What bounds the Redis CPU of one decision of gcra.lua in a batch (issue 34): compares gcra.lua, R requests per call,
# with scripts that receive the same keys and arguments but do less, and with the ideal client's minimal script (one
# request per call), each with benchmarks/script-ab.sh (alternating pairs, median ratio; see docs/profiling.md):
#   empty    returns 1: the floor of one EVALSHA with these keys and arguments (parsing, Lua set-up, the call)
#   get      one GET per key, returns 1
#   get+set  one GET and one SET ... PX per key, returns 1: the floor of a script that keeps one string per check
#            and sets its TTL on every write (gcra.lua before decision 136)
#   get+incr as gcra.lua since decision 136: one MGET of every key, then per key an INCRBY in place while the TAT
#            stays in the second of the stored one, else a SET ... PXAT the end of that second, returns 1: the floor of
#            gcra.lua's commands
#   minimal  the ideal client's script, one decision per call: the reference of issue 34's goal, per decision
# Usage: benchmarks/script-floor.sh [requests per call (20)] [pairs (6)] [checks per request (1)]
set -euo pipefail
cd "$(dirname "$0")/.."
requests="${1:-20}"; pairs="${2:-6}"; checks="${3:-1}"
gcra=ratelimit-redis/src/main/resources/META-INF/ratelimit/scripts/gcra.lua
minimal=benchmarks/src/main/resources/benchmarks/gcra-minimal.lua
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
echo 'return 1' >"$dir/empty.lua"
printf '%s\n' "for i = 1, #KEYS do redis.call('GET', KEYS[i]) end" 'return 1' >"$dir/get.lua"
cat >"$dir/get-set.lua" <<'LUA'
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
for i = 1, #KEYS do
  local tat = tonumber(redis.call('GET', KEYS[i]) or now)
  redis.call('SET', KEYS[i], string.format('%d', tat + 1), 'PX', 1000)
end
return 1
LUA
cat >"$dir/get-incr.lua" <<'LUA'
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local stored = redis.call('MGET', unpack(KEYS))
for i = 1, #KEYS do
  local old = tonumber(stored[i])
  local tat = (old and old > now) and old or now
  tat = tat + 1
  local second = math.ceil(tat / 1000000)
  if old and second == math.ceil(old / 1000000) then
    redis.call('INCRBY', KEYS[i], string.format('%d', tat - old))
  else
    redis.call('SET', KEYS[i], string.format('%d', tat), 'PXAT', string.format('%d', second * 1000))
  end
end
return 1
LUA
ratio() { benchmarks/script-ab.sh "$@" | tail -1 | sed 's/.*cpu per call \([0-9.]*\).*/\1/'; }
echo "gcra.lua, $requests request(s) of $checks check(s) per call, $pairs pairs each; Redis CPU per call ÷ gcra.lua's"
echo
echo "| script (same keys and arguments) | ÷ gcra.lua |"
echo "| --- | ---: |"
for s in empty get get-set get-incr; do
  echo "| $s | $(ratio "$gcra" "$dir/$s.lua" "$checks" "$pairs" "$requests")x |"
done
m="$(ratio "$minimal" "$gcra" "$checks" "$pairs" "$requests")"
echo
echo "gcra.lua per decision ÷ the minimal script per decision (one call each): $(awk -v m="$m" -v r="$requests" \
  'BEGIN { printf "%.2f", m / r }')x (per call $m x, $requests decisions per call)"
