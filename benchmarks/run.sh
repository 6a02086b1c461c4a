#!/usr/bin/env bash
# Runs the benchmarks and prints their Markdown tables. Each starts its own redis-server.
# Usage: benchmarks/run.sh [memory]
set -euo pipefail
cd "$(dirname "$0")/.."
run() {
  ./mvnw -q -B -pl benchmarks -am package exec:java -DskipTests -Dexec.mainClass="$1"
}
what="${1:-memory}"
case "$what" in
  memory) run dev.ratelimit.benchmarks.MemoryPerKey ;;
  *) echo "unknown benchmark: $what" >&2; exit 2 ;;
esac
