#!/usr/bin/env bash
# bench/crawler/freshness/freshness_bench.sh: how fresh `sieve crawl --revisit` keeps a site whose
# pages change as Poisson processes, against the optimal policy computed from the true change
# rates (Cho & Garcia-Molina 2003). docs/benchmarks.md, "Freshness", has the figures.
#
# Usage: bench/crawler/freshness/freshness_bench.sh SIEVE_BINARY
#        bench/crawler/freshness/freshness_bench.sh --standin   (harness check, no Sieve)
#   env DURATION      seconds of crawling per run (default 360)
#   env RUNS          runs per policy; the table shows medians (default 1)
#   env POLICIES      (default "fixed adaptive"; with --standin "uniform optimal")
#   env PAGES HOSTS   pages, spread over hosts 127.0.0.1..127.0.0.HOSTS (default 1000, 4)
#   env MIN_INTERVAL MAX_INTERVAL  the pages' mean seconds between changes, log-uniform
#                     (default 0.25, 25)
#   env SEED          the draw of the rates and change times (default 29)
#   env RATE          requests per second, the crawl's --max-requests-per-second (default 20)
#   env DELAY         seconds between requests to one host, --delay (default 0.1: the hosts
#                     together allow about HOSTS / DELAY = 40 requests/s, so RATE binds)
#   env REVISIT_MIN REVISIT_MAX  --revisit-min/--revisit-max (default 1, 600)
#   env SIEVE_FLAGS   more flags for sieve crawl
#   env OUT           output directory (default a new one under /tmp); per run OUT/runR-POLICY/
#                     holds the site's request log, meta.json and the crawl's output
#
# For each run and policy: the site starts afresh (freshness_site.py: PAGES pages on HOSTS
# loopback addresses, one free port), the crawler runs DURATION seconds against it
# (`--max-run-time DURATION`; a SIGINT at DURATION + 60 s if it has not stopped, SIGKILL 30 s
# later), the site stops, and freshness_measure.py reads the site's log. Then one table of
# medians, the analytic uniform and optimal freshness at RATE, and OUT/freshness.svg (the share of
# fresh pages over time). Needs python3 (Debian's) only; binds 127.0.0.0/8 only; no root.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
export PYTHONDONTWRITEBYTECODE=1
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "missing $PY (Debian's python3)" >&2; exit 2; }
if [ $# -ne 1 ]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
SIEVE=$1
if [ "$SIEVE" = --standin ]; then
  DEFAULT_POLICIES="uniform optimal"
else
  [ -x "$SIEVE" ] || { echo "not an executable: $SIEVE" >&2; exit 2; }
  SIEVE=$(cd "$(dirname "$SIEVE")" && pwd)/$(basename "$SIEVE")
  HELP=$("$SIEVE" help crawl)
  grep -q -- --revisit= <<< "$HELP" ||
    { echo "$SIEVE has no --revisit (needs the revisit work of issue 29)" >&2; exit 2; }
  DEFAULT_POLICIES="fixed adaptive"
fi
DURATION=${DURATION:-360}
RUNS=${RUNS:-1}
POLICIES=${POLICIES:-$DEFAULT_POLICIES}
PAGES=${PAGES:-1000}
HOSTS=${HOSTS:-4}
MIN_INTERVAL=${MIN_INTERVAL:-0.25}
MAX_INTERVAL=${MAX_INTERVAL:-25}
SEED=${SEED:-29}
RATE=${RATE:-20}
DELAY=${DELAY:-0.1}
REVISIT_MIN=${REVISIT_MIN:-1}
REVISIT_MAX=${REVISIT_MAX:-600}
SIEVE_FLAGS=${SIEVE_FLAGS:-}
OUT=${OUT:-$(mktemp -d /tmp/freshness-bench.XXXXXX)}
mkdir -p "$OUT"
HORIZON=$((DURATION + 120))

SITE_PID=
CRAWL_PID=
cleanup() {
  if [ -n "$CRAWL_PID" ]; then kill -KILL "$CRAWL_PID" 2> /dev/null || true; fi
  if [ -n "$SITE_PID" ]; then kill "$SITE_PID" 2> /dev/null || true; fi
}
trap cleanup EXIT

echo "freshness bench: $PAGES pages on $HOSTS hosts, mean change intervals $MIN_INTERVAL-$MAX_INTERVAL s" \
  "(log-uniform, seed $SEED), $RATE requests/s, delay $DELAY s, $DURATION s per run," \
  "$RUNS run(s) of: $POLICIES; output in $OUT"
"$PY" "$HERE/freshness_math.py" analytic "$PAGES" "$HOSTS" "$MIN_INTERVAL" "$MAX_INTERVAL" \
  "$SEED" "$RATE" > "$OUT/analytic.json"
: > "$OUT/results.jsonl"

crawl() {  # crawl DIR POLICY
  local dir=$1 policy=$2 rc=0
  if [ "$SIEVE" = --standin ]; then
    "$PY" "$HERE/standin_client.py" "$dir" "$policy" "$RATE" "$DURATION" "$DELAY" &
  else
    # shellcheck disable=SC2086
    "$SIEVE" crawl --seeds "$dir/seeds.txt" --out "$dir/crawl" --revisit "$policy" \
      --revisit-min "$REVISIT_MIN" --revisit-max "$REVISIT_MAX" \
      --max-requests-per-second "$RATE" --delay "$DELAY" --max-run-time "$DURATION" \
      --sitemaps off --log-level warn $SIEVE_FLAGS > "$dir/crawl.log" 2>&1 &
  fi
  CRAWL_PID=$!
  local waited=0
  while kill -0 "$CRAWL_PID" 2> /dev/null; do
    sleep 1
    waited=$((waited + 1))
    if [ "$waited" -eq $((DURATION + 60)) ]; then kill -INT "$CRAWL_PID" 2> /dev/null || true; fi
    if [ "$waited" -ge $((DURATION + 90)) ]; then kill -KILL "$CRAWL_PID" 2> /dev/null || true; fi
  done
  wait "$CRAWL_PID" || rc=$?
  CRAWL_PID=
  # 0: done; 3: stopped with work left (--max-run-time), what a revisit crawl always has.
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    echo "crawler exited $rc in $dir (see $dir/crawl.log)" >&2
  fi
}

for run in $(seq 1 "$RUNS"); do
  for policy in $POLICIES; do
    dir="$OUT/run$run-$policy"
    rm -rf "$dir"
    mkdir -p "$dir"
    "$PY" "$HERE/freshness_site.py" "$dir" "$PAGES" "$HOSTS" "$MIN_INTERVAL" "$MAX_INTERVAL" \
      "$SEED" "$HORIZON" 2> "$dir/site.log" &
    SITE_PID=$!
    for _ in $(seq 1 300); do
      [ -f "$dir/meta.json" ] && break
      kill -0 "$SITE_PID" 2> /dev/null || { cat "$dir/site.log" >&2; exit 1; }
      sleep 0.1
    done
    [ -f "$dir/meta.json" ] || { echo "the site did not start in 30 s" >&2; exit 1; }
    echo "run $run, $policy: crawling for $DURATION s"
    crawl "$dir" "$policy"
    kill "$SITE_PID"
    wait "$SITE_PID" || true
    SITE_PID=
    "$PY" "$HERE/freshness_measure.py" run "$dir" "$policy" "$DURATION" "$RATE" "$DELAY" \
      >> "$OUT/results.jsonl"
  done
done

"$PY" "$HERE/freshness_measure.py" table "$OUT/results.jsonl" "$OUT/analytic.json" \
  "$OUT/freshness.svg" | tee "$OUT/table.md"
echo "plot: $OUT/freshness.svg"
