#!/usr/bin/env bash
# bench/render/render_bench.sh: `sieve crawl --render always` (and `auto`) on a site whose every
# link is made by script, beside the naive way: `chromium-headless-shell --dump-dom
# --virtual-time-budget=B URL` run once per page of the same site (issue 38).
#
# Usage: bench/render/render_bench.sh [SIEVE_BINARY]   (default: build/release/crawler/sieve)
#   env PAGES     pages of the site (default 300)
#   env RUNS      runs per tool; the table shows medians (default 3)
#   env TOOLS     (default "sieve sieve-auto naive naive-2"); runs alternate between the tools:
#                   sieve       sieve crawl --render always
#                   sieve-auto  sieve crawl --render auto (the default mode)
#                   naive       chromium-headless-shell --dump-dom once per page, one at a time
#                   naive-2     the same, two at a time (the machine has 2 cores)
#   env VENDOR_KB the site's vendor bundle in KB (default 150)
#   env BUDGET_MS the naive way's --virtual-time-budget (default 5000: Sieve's own,
#                 RenderOptions::virtual_time_budget in render/render_types.h)
#   env SIEVE_FLAGS  more flags for sieve crawl (e.g. "--set render.browsers=2")
#
# The site (bench/render/render_bench.py site): a single-page app of PAGES pages /p/0 ..
# /p/<PAGES-1>; nginx answers every /p/ address with the same shell (an empty <div id="root">, a
# <noscript>, a stylesheet, a vendor bundle and the app's script, both `defer`); the app fetch()es
# /api/p/<i>.json and writes the page: "Home" and "Next" links at once, the "related" links
# (children 2i+1 and 2i+2 of a binary tree) after a 100 ms timer. The HTML has no link: every
# page must be rendered to find the next, and the crawl reaches all PAGES from /p/0 only that way.
#
# sieve: `sieve crawl --seeds /p/0 --render always|auto --delay 0 --concurrency 8` with the
# render.* defaults (1 browser x 4 tabs), as root: its browsers run as nobody with Chromium's
# sandbox on (render/browser_process.h). naive: each page's URL (the same PAGES addresses, given
# to it, not crawled) in its own `/usr/lib/chromium/chromium-headless-shell --dump-dom
# --virtual-time-budget=BUDGET_MS URL` (the binary, not the /usr/bin wrapper script), run as
# nobody with its sandbox on, like Sieve's (as root it would need --no-sandbox), HOME a fresh
# directory; nothing else on its command line. The naive way fetches from nginx itself.
#
# Figures (bench/render/render_bench.py figures): pages/s = pages rendered / wall seconds; CPU
# from /proc: every process of a run is in a cgroup of its own (cpuacct), sampled every 25 ms
# (/proc/<pid>/stat utime + stime, each process's last value); "browsers" counts every browser
# process, "all" adds sieve's own process (all its threads); "cgroup" is the cgroup's own
# counter, which also counts processes that exited between two samples (the check). Render time:
# sieve's "render_ms" of each page record (RenderResult::elapsed: from the tab's start to the
# result), naive's wall time of each invocation (browser start included: that is the naive
# way's cost). PSS per browser: /proc/<pid>/smaps_rollup summed over a browser's processes (its
# process group) every 200 ms; peak of all samples, median of each browser's median. found: the
# site's pages Sieve fetched (records with status 200), or the naive way's pages named by links
# in the DOMs it dumped (plus /p/0); both must find all PAGES.
#
# Needs root (its own network and mount namespace, `unshare --net --mount`, and a cgroup) and
# nginx-light, chromium-headless-shell, /usr/bin/python3. Without root it says so and exits 0.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" != 0 ]; then
  echo "skip: the render benchmark needs root (its own network namespace with unshare" \
    "--net --mount, and a cgroup)"
  exit 0
fi
for tool in unshare ip mount nginx curl /usr/bin/python3 /usr/lib/chromium/chromium-headless-shell; do
  command -v "$tool" > /dev/null || { echo "missing $tool (see the header of $0)" >&2; exit 2; }
done

if [ -z "${RENDER_BENCH_IN_NETNS:-}" ]; then
  SIEVE=$(realpath "${1:-build/release/crawler/sieve}")
  [ -x "$SIEVE" ] || { echo "no sieve binary at $SIEVE" >&2; exit 2; }
  exec env RENDER_BENCH_IN_NETNS=1 unshare --net --mount -- "$0" "$SIEVE"
fi
SIEVE=$1
PAGES=${PAGES:-300}
RUNS=${RUNS:-3}
TOOLS=${TOOLS:-"sieve sieve-auto naive naive-2"}
VENDOR_KB=${VENDOR_KB:-150}
BUDGET_MS=${BUDGET_MS:-5000}
SIEVE_FLAGS=${SIEVE_FLAGS:-}
PORT=8080
PY=/usr/bin/python3

ip link set lo up
WORK=$(mktemp -d /tmp/sieve-render-bench-XXXXXX)
chmod 755 "$WORK"
echo "work files in $WORK"
cleanup() {
  [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2> /dev/null || true
}
trap cleanup EXIT

"$PY" "$HERE/render_bench.py" site "$WORK/site" "$PAGES" "$VENDOR_KB"
mkdir -p "$WORK/nginx-tmp"
"$PY" "$HERE/render_bench.py" nginx-conf "$WORK" "$WORK/site" "$PORT" > "$WORK/nginx.conf"
nginx -c "$WORK/nginx.conf" -p "$WORK" -e "$WORK/nginx-error.log"
SEED="http://127.0.0.1:$PORT/p/0"
curl -fsS -o /dev/null "$SEED" || { echo "nginx does not serve $SEED" >&2; exit 1; }
echo "$SEED" > "$WORK/seeds.txt"
for i in $(seq 0 $((PAGES - 1))); do echo "http://127.0.0.1:$PORT/p/$i"; done > "$WORK/urls.txt"
echo "site: $PAGES pages, vendor bundle $(stat -c %s "$WORK/site/static/vendor.js") bytes;" \
  "budget $BUDGET_MS ms; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"

run_tool() {  # tool dir
  local tool=$1 dir=$2
  mkdir -p "$dir"
  case $tool in
    sieve | sieve-auto)
      local mode=always
      [ "$tool" = sieve-auto ] && mode=auto
      # shellcheck disable=SC2086  # SIEVE_FLAGS is a list of flags
      "$PY" "$HERE/render_bench.py" run "$dir" -- "$SIEVE" crawl --seeds "$WORK/seeds.txt" \
        --out "$dir/out" --delay 0 --concurrency 8 --render "$mode" --log-level warn $SIEVE_FLAGS
      ;;
    naive) "$PY" "$HERE/render_bench.py" naive "$dir" "$WORK/urls.txt" "$BUDGET_MS" 1 ;;
    naive-2) "$PY" "$HERE/render_bench.py" naive "$dir" "$WORK/urls.txt" "$BUDGET_MS" 2 ;;
    *) echo "unknown tool $tool" >&2; exit 2 ;;
  esac
}

RESULTS="$WORK/results.jsonl"
: > "$RESULTS"
for run in $(seq 1 "$RUNS"); do
  for tool in $TOOLS; do
    dir="$WORK/$tool-$run"
    run_tool "$tool" "$dir" || echo "$tool run $run exited $?"
    line=$("$PY" "$HERE/render_bench.py" figures "$dir" "$tool" "$PAGES" "$SEED")
    echo "$tool run $run: $line"
    echo "$line" >> "$RESULTS"
    rm -rf "$dir/dom" "$dir/out/warc"
  done
done

"$PY" "$HERE/render_bench.py" table "$RESULTS"
echo "(medians of $RUNS runs; $PAGES pages; sieve flags: --delay 0 --concurrency 8 $SIEVE_FLAGS;" \
  "load average at the end $(cut -d' ' -f1-3 /proc/loadavg); results in $RESULTS)"
