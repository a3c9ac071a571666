#!/usr/bin/env bash
# bench/crawler/warc_crawl_bench.sh: what --warc costs a crawl, per page: `sieve crawl --demo`
# (the loopback test site, served from inside the binary) run with and without --warc,
# alternating, and the medians of CPU seconds per page and output bytes per page.
#
# Usage: bench/crawler/warc_crawl_bench.sh [SIEVE_BINARY]   (default: build/release/crawler/sieve)
#   env PAGES  pages per crawl (default 2000)
#   env RUNS   runs of each mode; the table shows medians (default 5)
#   env LEVEL  output.warc_gzip_level (default 6)
#
# CPU is the process's user+system seconds from summary.json (cpu_seconds): the demo site's
# server threads run in the same process and are counted in both modes, so the difference
# between the rows is the WARC cost (wire capture in the fetcher, SHA-1, deflate, write(2),
# the CDXJ). Bytes: pages.jsonl and, with --warc, OUT/warc/* (WARC + CDXJ), per page.
set -euo pipefail

SIEVE=${1:-build/release/crawler/sieve}
PAGES=${PAGES:-2000}
RUNS=${RUNS:-5}
LEVEL=${LEVEL:-6}
command -v jq > /dev/null || { echo "missing jq (apt-get install jq)" >&2; exit 2; }
[[ -x "$SIEVE" ]] || { echo "no sieve binary at $SIEVE" >&2; exit 2; }

work=$(mktemp -d /tmp/warc-crawl-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cfg="$work/level.toml"
printf '[output]\nwarc_gzip_level = %s\n' "$LEVEL" > "$cfg"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for run in $(seq 1 "$RUNS"); do
  for mode in plain warc; do
    out="$work/$mode-$run"
    flags=()
    [[ $mode == warc ]] && flags=(--warc)
    "$SIEVE" crawl --demo --max-pages "$PAGES" --config "$cfg" --log-level warn \
      --out "$out" "${flags[@]}" > /dev/null
    pages=$(jq '.counters.pages' "$out/summary.json")
    cpu=$(jq '.cpu_seconds' "$out/summary.json")
    bytes=$(du -sb "$out/pages.jsonl" | cut -f1)
    [[ -d "$out/warc" ]] && bytes=$((bytes + $(du -sb "$out/warc" | cut -f1)))
    echo "$mode $pages $cpu $bytes" >> "$work/results"
    rm -rf "$out"
  done
done

printf '%-6s %6s %12s %16s %16s\n' mode pages "CPU s" "CPU µs/page" "bytes/page"
for mode in plain warc; do
  rows=$(grep "^$mode " "$work/results")
  pages=$(awk '{print $2}' <<< "$rows" | median)
  cpu=$(awk '{print $3}' <<< "$rows" | median)
  per_page=$(awk '{printf "%.1f\n", $3 / $2 * 1e6}' <<< "$rows" | median)
  bytes=$(awk '{printf "%.0f\n", $4 / $2}' <<< "$rows" | median)
  printf '%-6s %6s %12.3f %16s %16s\n' "$mode" "$pages" "$cpu" "$per_page" "$bytes"
done
