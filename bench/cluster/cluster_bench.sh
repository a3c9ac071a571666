#!/usr/bin/env bash
# bench/cluster/cluster_bench.sh: one crawl shared by 1, 2 and 4 `sieve crawl --cluster` workers
# through one redis-server, and the same crawl by one plain `sieve crawl`, against a loopback
# site of HOSTS hosts whose server adds DELAY_MS to every answer (bench_cluster_site), so the
# crawl waits on servers, not on this machine's cores.
#
# Usage: bench/cluster/cluster_bench.sh [BUILD_DIR]        (default: build/release)
#   env HOSTS (64), PAGES per host's graph (50), DELAY_MS (50), CONCURRENCY per worker (8),
#   WORKERS ("1 2 4"), FP_RATE (0.01), EXPECTED_URLS (filter capacity, 5000), SHARDS (16),
#   KEEP (set: keep the work directory with every worker's pages.jsonl and summary.json),
#   PLAIN (1; 0 skips the plain `sieve crawl`), RUNS (1: each crawl this many times, taken
#   in turn: plain, 1, 2, 4 workers, plain, ...; then the median pages/s of each and its
#   ratio to the median of 1 worker)
#
# Every crawl: --delay 0 --per-host-connections 1 (one request at a time per host, bound by
# the server's DELAY_MS), --concurrency CONCURRENCY per worker, SHARDS shards. Prints, per run:
# pages recorded, wall seconds from the first worker's start to the last one's exit,
# pages/s, Redis commands per page two ways: "sent" by the workers (a script call counts one;
# `sieve cluster status`'s redis_commands) and "run" by Redis (INFO commandstats: the commands
# inside scripts count too, e.g. the k SETBITs of a filter test-and-set), and Redis
# memory per seen URL, two ways, over the filter's estimated count of URLs: "filter B/URL" is
# MEMORY USAGE of the filter's keys (sized from EXPECTED_URLS and FP_RATE when the crawl is
# created: set EXPECTED_URLS near the crawl's URL count); "all B/URL" is used_memory after the
# crawl minus before it (the streams are empty by then, but 16 empty streams, their consumer
# groups, the scripts and the workers' keys weigh a few KB each: on a crawl of a few thousand
# URLs they dominate).
# Needs: redis-server (scripts/install-deps.sh installs it).
set -euo pipefail

BUILD=${1:-build/release}
SIEVE=$(realpath "$BUILD/crawler/sieve")
SITE=$(realpath "$BUILD/bench/cluster/bench_cluster_site")
HOSTS=${HOSTS:-64}
PAGES=${PAGES:-50}
DELAY_MS=${DELAY_MS:-50}
CONCURRENCY=${CONCURRENCY:-8}
WORKERS=${WORKERS:-"1 2 4"}
FP_RATE=${FP_RATE:-0.01}
EXPECTED_URLS=${EXPECTED_URLS:-5000}
SHARDS=${SHARDS:-16}
command -v redis-server > /dev/null || { echo "missing redis-server" >&2; exit 2; }

WORK=$(mktemp -d /tmp/sieve-cluster-bench-XXXXXX)
PORT=$((20000 + RANDOM % 20000))
SITE_PID=""
REDIS_PID=""
cleanup() {
  [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2> /dev/null || true
  [ -n "$SITE_PID" ] && kill "$SITE_PID" 2> /dev/null || true
  if [ -n "${KEEP:-}" ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

"$SITE" "$HOSTS" "$PAGES" "$DELAY_MS" "$WORK/seeds.txt" > "$WORK/site.log" 2>&1 &
SITE_PID=$!
for _ in $(seq 100); do [ -f "$WORK/seeds.txt" ] && break; sleep 0.1; done

redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" \
  > "$WORK/redis.log" 2>&1 &
REDIS_PID=$!
for _ in $(seq 100); do redis-cli -p "$PORT" ping > /dev/null 2>&1 && break; sleep 0.1; done
R="redis-cli -p $PORT"

common=(--seeds "$WORK/seeds.txt" --delay 0 --per-host-connections 1
  --concurrency "$CONCURRENCY" --expected-urls "$EXPECTED_URLS" --fp-rate "$FP_RATE"
  --max-run-time 600 --log-level warn)
printf '[cluster]\nshards = %d\nlease_seconds = 2\n' "$SHARDS" > "$WORK/cluster.toml"

pages_of() { cat "$@" 2> /dev/null | wc -l; }
info() { $R info "$1" | tr -d '\r' | awk -F: -v k="$2" '$1 == k { print $2 }'; }
commands() {
  $R info commandstats | tr -d '\r' | sed -n 's/^cmdstat_[^:]*:calls=\([0-9]*\),.*/\1/p' |
    awk '{ s += $1 } END { print s + 0 }'
}

# rate NAME PAGES SECONDS: prints pages/s and keeps it for the medians.
rate() {
  echo "$2 / $3" | bc -l | tee -a "$WORK/rates-$1"
}

run_plain() {
  local out="$WORK/plain" start end pages
  rm -rf "$out"
  start=$(date +%s.%N)
  "$SIEVE" crawl "${common[@]}" --out "$out" > "$WORK/plain.log" 2>&1
  end=$(date +%s.%N)
  pages=$(pages_of "$out/pages.jsonl")
  printf '%-12s %6d %7.1f %7.1f %9s %9s %7s %12s %10s\n' "plain sieve" "$pages" \
    "$(echo "$end - $start" | bc)" "$(rate plain "$pages" "$(echo "$end - $start" | bc)")" \
    - - - - -
}

run_cluster() {
  local n=$1 id="bench-$1"
  rm -rf "${WORK:?}/$id"
  $R flushall > /dev/null
  $R config resetstat > /dev/null
  mem_before=$(info memory used_memory)
  start=$(date +%s.%N)
  pids=()
  for w in $(seq "$n"); do
    "$SIEVE" crawl --config "$WORK/cluster.toml" --cluster "redis://127.0.0.1:$PORT" \
      --crawl-id "$id" --worker-id "w$w" "${common[@]}" --out "$WORK/$id/w$w" \
      > "$WORK/$id-w$w.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  end=$(date +%s.%N)
  cmds=$(commands)
  mem_after=$(info memory used_memory)
  status=$("$SIEVE" cluster status --cluster "redis://127.0.0.1:$PORT" --crawl-id "$id" --json)
  seen=$(echo "$status" | sed -n 's/.*"estimated_count": \([0-9.e+]*\).*/\1/p' | head -1)
  sent=$(echo "$status" | sed -n 's/^  "redis_commands": \([0-9]*\).*/\1/p')
  pages=$(pages_of "$WORK/$id"/w*/pages.jsonl)
  filter_bytes=0
  for key in $($R --scan --pattern "sieve:{$id:s*}:f*"); do
    filter_bytes=$((filter_bytes + $($R memory usage "$key")))
  done
  printf '%-12s %6d %7.1f %7.1f %9.1f %9.1f %7.0f %12.2f %10.2f\n' "$n worker(s)" "$pages" \
    "$(echo "$end - $start" | bc)" "$(rate "$n" "$pages" "$(echo "$end - $start" | bc)")" \
    "$(echo "$sent / $pages" | bc -l)" "$(echo "$cmds / $pages" | bc -l)" "$seen" \
    "$(echo "$filter_bytes / $seen" | bc -l)" \
    "$(echo "($mem_after - $mem_before) / $seen" | bc -l)"
}

printf '%-12s %6s %7s %7s %9s %9s %7s %12s %10s\n' run pages seconds pages/s "sent/page" \
  "run/page" "URLs" "filter B/URL" "all B/URL"
for _ in $(seq "${RUNS:-1}"); do
  if [ "${PLAIN:-1}" != 0 ]; then run_plain; fi
  for n in $WORKERS; do run_cluster "$n"; done
done

median() { sort -g "$WORK/rates-$1" | awk '{ v[NR] = $1 } END {
  print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
if [ "${RUNS:-1}" -gt 1 ]; then
  echo "medians of $RUNS runs (pages/s, and against the median of 1 worker):"
  one=$( [ -f "$WORK/rates-1" ] && median 1 || echo "")
  for name in plain $WORKERS; do
    [ -f "$WORK/rates-$name" ] || continue
    m=$(median "$name")
    printf '  %-6s %7.1f  (runs: %s)' "$name" "$m" \
      "$(sort -g "$WORK/rates-$name" | xargs printf '%.1f ' | sed 's/ $//')"
    [ -n "$one" ] && printf '  %.2fx' "$(echo "$m / $one" | bc -l)"
    echo
  done
fi
