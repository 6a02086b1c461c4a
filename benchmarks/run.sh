#!/usr/bin/env bash
# Runs the benchmarks against redis-server processes they start themselves (the redis-server on the PATH, else the
# one inside the embedded-redis jar); see docs/benchmarks.md for what each measures.
#
# Usage: benchmarks/run.sh [command] [scenario...] [options]
#   all (default)             everything; REWRITES docs/benchmarks.md and docs/benchmarks-throughput.svg (~10 min)
#   throughput [scenario...]  decisions/s and latency against peers; prints the tables
#                             scenarios: one-thread many-keys hot-key three-rules (default: all)
#   ceiling                   redis-benchmark EVALSHA of the minimal GCRA script and of ours; prints the table
#   memory                    Redis memory per key of every algorithm; prints the table
#   model                     the cost model: Redis cores (Cluster shards) and application cores per 10^5, 10^6 and
#                             10^7 decisions/s from this run's CPU per decision (exact path, three rules, deny cache,
#                             local sync, a Redis Cluster of three masters); writes docs/benchmarks-model.md (~3 min;
#                             --rounds=3 by default)
#   concurrency               a concurrency rule (acquire + release: two round trips) against a rate rule; prints the
#                             tables (options as for throughput, except --contenders)
#   http                      the sample app with and without the limiter: added p50/p99; writes docs/benchmarks-http.md
#   timeout                   what the non-blocking forms' timeout costs a call, one call at a time (prints p50, CPU)
#   webflux                   a WebFlux application, a limited and an unlimited path: added p50/p99; prints the table
#   gateway                   a gateway route with the RateLimit filter vs the gateway's RedisRateLimiter (prints a table)
#   reactive                  webflux and gateway together; writes docs/benchmarks-reactive.md (~3 min)
#   charts                    one bursty trace through every rate algorithm, Java reference and Redis (must agree);
#                             writes docs/images/algorithm-*.svg and prints the table of docs/algorithms.md (seconds)
# Options (throughput, all): --contenders=ours,ours-unbatched,ours-1-lane,ours-async,ours-local,ours-starter,ours-script,ideal,ideal-pipelined,
#   ideal-async,bucket4j,bucket4j-delaying,redisson,scg, ours-<rate algorithm> such as ours-fixed-window (the -async rows keep 4 decisions in flight per thread: see docs/profiling.md)
#   --warmup=2 --seconds=2 --rounds=5
# JAVA_OPTS is passed to the JVM, e.g. JAVA_OPTS=-XX:StartFlightRecording=filename=/tmp/bench.jfr
set -euo pipefail
cd "$(dirname "$0")/.."
started="$(date +%s)"
command="${1:-all}"
if [ "$command" = "gateway" ] || [ "$command" = "reactive" ]; then
  ./mvnw -q -B -pl benchmarks,sample-reactive -am package -DskipTests
elif [ "$command" = "all" ]; then
  ./mvnw -q -B -pl benchmarks,sample-app,sample-reactive -am package -DskipTests
elif [ "$command" = "http" ]; then
  ./mvnw -q -B -pl benchmarks,sample-app -am package -DskipTests
else
  ./mvnw -q -B -pl benchmarks -am package -DskipTests
fi
revision="$(git describe --always --dirty 2>/dev/null || echo unknown)"
run_java() {
  # shellcheck disable=SC2086
  java -Xms1g -Xmx1g ${JAVA_OPTS:-} -Dbench.revision="$revision" -Dbench.started="$started" \
    -cp "benchmarks/target/classes:benchmarks/target/lib/*" "$@"
}
if [ "$command" = "http" ]; then
  run_java dev.ratelimit.benchmarks.HttpOverhead docs
  exit 0
fi
if [ "$command" = "charts" ]; then
  run_java dev.ratelimit.benchmarks.AlgorithmCharts docs/images
  exit 0
fi
if [ "$command" = "timeout" ]; then
  run_java dev.ratelimit.benchmarks.TimeoutCost
  exit 0
fi
if [ "$command" = "webflux" ]; then
  run_java dev.ratelimit.benchmarks.WebFluxOverhead
  exit 0
fi
if [ "$command" = "gateway" ]; then
  # prints a table for docs/benchmarks.md (section "Spring Cloud Gateway"); -Dbench.threads, .warmup, .round, .rounds
  run_java ${BENCH_OPTS:-} dev.ratelimit.benchmarks.http.GatewayBenchmark
  exit 0
fi
if [ "$command" = "reactive" ]; then
  # -Dbench.requests (WebFlux), -Dbench.threads, .warmup, .round, .rounds (gateway) via BENCH_OPTS
  run_java ${BENCH_OPTS:-} dev.ratelimit.benchmarks.ReactiveOverhead docs
  exit 0
fi
run_java dev.ratelimit.benchmarks.Benchmarks "$@"
if [ "$command" = "all" ]; then
  run_java dev.ratelimit.benchmarks.HttpOverhead docs
  run_java ${BENCH_OPTS:-} dev.ratelimit.benchmarks.ReactiveOverhead docs
fi
