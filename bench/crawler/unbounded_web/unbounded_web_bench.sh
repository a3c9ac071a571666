#!/usr/bin/env bash
# bench/crawler/unbounded_web/unbounded_web_bench.sh: `sieve crawl` on a web that never ends,
# built on this machine, for DURATION seconds, then Ctrl-C (SIGINT); a sampler records pages/s,
# CPU, RSS, open files and the crawl's own counters (its /metrics) every second, and
# unbounded_web.py computes what issue #36 asks of a crawl that meets hosts without end.
#
# Usage: bench/crawler/unbounded_web/unbounded_web_bench.sh [SIEVE_BINARY]
#   (default: build/release/crawler/sieve)
#   env DURATION  seconds of crawl before the SIGINT (default 120; the figures of
#                 docs/benchmarks.md are 600)
#   env CASES     space-separated cases (default "web"):
#                   web   every page names 5 new hosts, each on a new registrable domain
#                         (hHHHHHH.dDDDDDD.test), 5 new pages of its own host and 3 hub pages
#                         (hub0..2.test/); the seeds are the three hubs
#                   trap  the same web plus a wildcard domain: every host under trap.test
#                         exists, and each of its pages names 5 new hosts of trap.test (and 5
#                         pages of its own host, and the hubs); the web's pages also name one
#                         trap host each, so the trap competes with the rest of the web; the
#                         seeds are the hubs only (a seed's registrable domain is exempt from
#                         crawl.domain_budget, so seeding the trap would lift its budget), and
#                         the trap is found through links. Its share of the pages is reported
#                         (trap_share)
#   env SCHEMES   (default "http"; "http https" for both). HTTPS runs pass --insecure: no
#                 certificate can name hosts that do not exist yet (a wildcard covers one label
#                 under one domain), so the handshake is made and the check is skipped
#   env RUNS      runs per (case, scheme) (default 1)
#   env SIEVE_FLAGS  more flags for sieve crawl (e.g. "--set fetch.max_idle_connections=256")
#   env SIEVE_BEFORE a second sieve binary, run as tool "sieve-before" with the same flags,
#                 alternating with SIEVE
#   env PROFILE   when 1, each run is recorded with `perf record -g` (perf.data in its dir)
#   env RESUME    seconds of `sieve crawl --resume` of each run's checkpoint right after its
#                 stop (default 0: none); sampled like the run (DIR/resume/samples.jsonl)
#
# The crawl runs with its defaults except --scope any (the web is all foreign hosts),
# fetch.allow_private_addresses (it is all loopback), --metrics on 127.0.0.1 and
# crawl.checkpoint_seconds (default 30, unchanged). Every run's sampler output is
# DIR/samples.jsonl (one line a second: t, pages, requests, cpu_s, rss_mb, fds, queued, hosts
# active, robots cache entries), and its figures one line of results.jsonl:
#   pages_per_s_first_q / last_q   pages/s over the first and last quarter of the run
#   speed_ratio                    last / first (issue #36 wants >= 0.8)
#   slow_stretches_30s             30-s windows (sliding by 1 s, merged) whose rate is below a
#                                  quarter of the median 1-s rate (wants 0); longest_slow_s
#   cpu_ms_per_page_first_q / last_q, cpu_ratio   (wants last <= 1.2 x first)
#   rss_mb_end, rss_mb_peak, rss_growth_mb_per_min_last_half   (the slope of a least-squares
#                                  line over the second half of the run; wants <= 5 once the
#                                  budgets are full)
#   stop_s                         SIGINT to exit, checkpoint included (wants <= stop_grace + 2)
#   fds_end                        open files of the crawler just before the SIGINT (its sockets)
#   load1                          the load average when the run ended (a shared machine)
#   resume_pages_per_s, resume_ratio   with RESUME: pages/s of the resumed crawl from a quarter
#                                  of its time to its end, and that over the run's last quarter;
#                                  resume_start_s (start to its first page), resume_stop_s,
#                                  resume_rss_mb_peak, resume_cpu_ms_per_page
#
# Needs root (its own network and mount namespace, `unshare --net --mount`; nothing outside is
# touched) and nginx-light, dnsmasq-base, openssl, curl. Without root it says so and exits 0.
#
# Inside the namespace: loopback up; dnsmasq on 127.0.0.1 answers every name under .test with
# 127.0.0.1 (--address=/test/...), /etc/resolv.conf points at it (bind mount). nginx (one
# worker, no access log) answers every request with a ~2 KB page made with `return 200` from
# $request_id (random per request), and /robots.txt on every host.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" != 0 ]; then
  echo "skip: the unbounded-web benchmark needs root (it makes its own network namespace with" \
    "unshare --net --mount)"
  exit 0
fi
for tool in unshare ip mount nginx dnsmasq openssl curl /usr/bin/python3; do
  command -v "$tool" > /dev/null || { echo "missing $tool (see the header of $0)" >&2; exit 2; }
done

if [ -z "${UNBOUNDED_WEB_IN_NETNS:-}" ]; then
  SIEVE=$(realpath "${1:-build/release/crawler/sieve}")
  [ -x "$SIEVE" ] || { echo "no sieve binary at $SIEVE" >&2; exit 2; }
  [ -z "${SIEVE_BEFORE:-}" ] || SIEVE_BEFORE=$(realpath "$SIEVE_BEFORE")
  exec env UNBOUNDED_WEB_IN_NETNS=1 SIEVE_BEFORE="${SIEVE_BEFORE:-}" unshare --net --mount -- \
    "$0" "$SIEVE"
fi
SIEVE=$1
SIEVE_BEFORE=${SIEVE_BEFORE:-}
DURATION=${DURATION:-120}
CASES=${CASES:-web}
SCHEMES=${SCHEMES:-http}
RUNS=${RUNS:-1}
SIEVE_FLAGS=${SIEVE_FLAGS:-}
PROFILE=${PROFILE:-0}
RESUME=${RESUME:-0}
TOOLS="sieve${SIEVE_BEFORE:+ sieve-before}"
PY=/usr/bin/python3
METRICS_PORT=9464

ip link set lo up
WORK=$(mktemp -d /tmp/sieve-unbounded-web-XXXXXX)
echo "work files in $WORK"
cleanup() {
  for pid in "$WORK"/*.pid; do
    [ -f "$pid" ] && kill "$(cat "$pid")" 2> /dev/null || true
  done
}
trap cleanup EXIT

echo "nameserver 127.0.0.1" > "$WORK/resolv.conf"
mount --bind "$WORK/resolv.conf" /etc/resolv.conf
dnsmasq --no-resolv --no-hosts --address=/test/127.0.0.1 --local-ttl=3600 \
  --listen-address=127.0.0.1 --bind-interfaces --user=root --pid-file="$WORK/dnsmasq.pid" \
  --cache-size=10000

"$HERE/../../lib/make_test_ca.sh" "$WORK" "unbounded web bench CA" "DNS:*.trap.test"
mkdir -p "$WORK/nginx-tmp"
start_nginx() {  # case
  "$PY" "$HERE/unbounded_web.py" nginx-conf "$WORK" "$1" > "$WORK/nginx.conf"
  nginx -c "$WORK/nginx.conf" -p "$WORK" -e "$WORK/nginx-error.log"
  for _ in $(seq 50); do curl -s -o /dev/null http://hub0.test/ && break; sleep 0.1; done
}
stop_nginx() {
  local pid
  pid=$(cat "$WORK/nginx.pid")
  kill "$pid"
  while kill -0 "$pid" 2> /dev/null; do sleep 0.05; done
  rm -f "$WORK/nginx.pid"
}

# SIGINT to the crawler $1, wait for its launcher $2; "start end exit-code" into $3.
interrupt() {
  local start end rc=0
  start=$(date +%s.%N)
  kill -INT "$1"
  wait "$2" || rc=$?
  end=$(date +%s.%N)
  echo "$start $end $rc" > "$3"
}

RESULTS="$WORK/results.jsonl"
: > "$RESULTS"
for run in $(seq 1 "$RUNS"); do
  for case_ in $CASES; do
    for scheme in $SCHEMES; do
      for tool in $TOOLS; do
        binary=$SIEVE
        [ "$tool" = sieve-before ] && binary=$SIEVE_BEFORE
        dir="$WORK/$case_-$scheme-$tool-$run"
        mkdir -p "$dir"
        start_nginx "$case_"
        seeds=("$scheme://hub0.test/" "$scheme://hub1.test/" "$scheme://hub2.test/")
        printf '%s\n' "${seeds[@]}" > "$dir/seeds.txt"
        flags=(--scope any --set fetch.allow_private_addresses=true --log-level warn
          --metrics "127.0.0.1:$METRICS_PORT")
        [ "$scheme" = https ] && flags+=(--insecure)
        cmd=("$binary" crawl --seeds "$dir/seeds.txt" --out "$dir/out" "${flags[@]}" $SIEVE_FLAGS)
        [ "$PROFILE" = 1 ] && cmd=(perf record -F 199 -g -o "$dir/perf.data" -- "${cmd[@]}")
        echo "$case_ $scheme $tool run $run: ${cmd[*]}"
        "${cmd[@]}" > "$dir/log.txt" 2>&1 &
        launcher=$!
        # The crawler's own pid (perf's child when profiling).
        pid=$launcher
        if [ "$PROFILE" = 1 ]; then
          for _ in $(seq 50); do
            pid=$(pgrep -P "$launcher" || true)
            [ -n "$pid" ] && break
            sleep 0.1
          done
        fi
        "$PY" "$HERE/unbounded_web.py" sample "$pid" "$METRICS_PORT" "$DURATION" \
          > "$dir/samples.jsonl"
        ls /proc/"$pid"/fd 2> /dev/null | wc -l > "$dir/fds_end.txt"
        interrupt "$pid" "$launcher" "$dir/stop.txt"
        if [ "$RESUME" -gt 0 ]; then
          mkdir -p "$dir/resume"
          "$binary" crawl --resume "$dir/out" --log-level warn \
            --metrics "127.0.0.1:$METRICS_PORT" > "$dir/resume/log.txt" 2>&1 &
          pid=$!
          "$PY" "$HERE/unbounded_web.py" sample "$pid" "$METRICS_PORT" "$RESUME" \
            > "$dir/resume/samples.jsonl"
          interrupt "$pid" "$pid" "$dir/resume/stop.txt"
        fi
        line=$("$PY" "$HERE/unbounded_web.py" figures "$dir" "$case_" "$scheme" "$tool" "$run")
        echo "$line" >> "$RESULTS"
        echo "  $line"
        stop_nginx
        rm -rf "$dir/out/pages.jsonl" "$dir/out/skipped.jsonl"
      done
    done
  done
done
echo
echo "(DURATION $DURATION s; sieve flags: $SIEVE_FLAGS; $(nproc) cores; load average" \
  "$(cut -d' ' -f1-3 /proc/loadavg); results in $RESULTS)"
"$PY" "$HERE/unbounded_web.py" table "$RESULTS"
