#!/usr/bin/env bash
# Drives the sample app (see docs/operations.md, "A chart from a real run") for a while with a mix of allowed and
# denied requests, makes two operator moves on the way, and writes what it did and when to an events file that
# chart-from-run.py draws as markers:
#
#   t=0    ~5 req/s on /api/hello (5 per 10 s per IP: mostly denied), ~2 req/s on /api/search with demo-free-key and
#          pageSize=5 (60 units/min: mostly denied), ~2 req/s with demo-pro-key (allowed)
#   t=20s  POST /actuator/ratelimits/hello {"mode":"shadow"}: hello's denials become shadow_denied, nothing is blocked
#   t=35s  CLIENT PAUSE 6000 on the Redis (only if REDIS_PORT is set): decisions time out, the circuit opens and the
#          fallback decides (fallback_allowed, fallback_denied, store state 'fallback') until Redis answers again
#   t=50s  DELETE /actuator/ratelimits/hello: back to the configured enforce mode
#
# Usage: docs/grafana/load.sh [seconds=70] [events-file=/tmp/ratelimit-events.txt]
# Environment: BASE_URL (default http://localhost:8089), REDIS_PORT (the sample's Redis; unset skips the pause).
set -u
seconds=${1:-70}
events=${2:-/tmp/ratelimit-events.txt}
base=${BASE_URL:-http://localhost:8089}
: > "$events"
start=$(date +%s)
end=$((start + seconds))

event() { echo "$(date +%s.%N) $*" >> "$events"; echo "t=$(( $(date +%s) - start ))s: $*"; }

loop() { # interval, curl arguments...
	local interval=$1
	shift
	while [ "$(date +%s)" -lt "$end" ]; do
		curl -s -o /dev/null --max-time 5 "$@"
		sleep "$interval"
	done
}

loop 0.2 "$base/api/hello" &
loop 0.5 -H 'X-API-Key: demo-free-key' "$base/api/search?q=load&pageSize=5" &
loop 0.5 -H 'X-API-Key: demo-pro-key' "$base/api/search?q=load&pageSize=1" &

at() { # second, then run the rest
	local when=$(( start + $1 ))
	while [ "$(date +%s)" -lt "$when" ]; do sleep 0.2; done
}

event "load started"
at 20
curl -s -o /dev/null -X POST -H 'Content-Type: application/json' -d '{"mode": "shadow"}' "$base/actuator/ratelimits/hello"
event "hello set to shadow mode (override)"
if [ -n "${REDIS_PORT:-}" ]; then
	at 35
	redis-cli -p "$REDIS_PORT" CLIENT PAUSE 6000 > /dev/null
	event "Redis paused for 6 s (CLIENT PAUSE)"
fi
at 50
curl -s -o /dev/null -X DELETE "$base/actuator/ratelimits/hello"
event "hello override removed (enforce)"
wait
event "load stopped"
