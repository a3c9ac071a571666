#!/usr/bin/env bash
# bench/crawler/crawl_bench.sh: `sieve crawl` beside wget --recursive, wget2 and httrack on one
# static site of real, human-written HTML served by nginx on 127.0.0.1.
#
# Usage: bench/crawler/crawl_bench.sh [SIEVE_BINARY]     (default: build/release/crawler/sieve)
#   env SIEVE_BEFORE  a second sieve binary (an older build), run as tool "sieve-before" with the
#                same flags, so the two are measured side by side in one run
#   env SIEVE_BEFORE_FLAGS  flags added to sieve-before's command only: with SIEVE_BEFORE set to
#                the same binary and SIEVE_BEFORE_FLAGS="--render off", the default mode against
#                rendering off (docs/benchmarks.md, issue 38)
#   env PROFILE  when 1, after the timed runs each sieve binary crawls once more under
#                `perf record` (needs linux-perf) and the script prints its top 10 symbols by
#                share of the samples (self time, whole process) and the share of each library
#   env DOCROOT  site to serve (default: the Java SE 17 API documentation of openjdk-17-doc,
#                /usr/share/doc/openjdk-17-jre-headless/api: 10,137 HTML files, 287 MB, the
#                OpenJDK authors' documentation comments rendered by javadoc). Smaller trees:
#                libstdc++-12-doc's /usr/share/doc/gcc-12-base/libstdc++ (3,906 HTML files),
#                libboost1.74-doc's /usr/share/doc/libboost1.74-doc/doc/html (3,805).
#   env RUNS     runs per tool; the table shows medians (default 3)
#   env TOOLS    which tools (default "sieve wget2 httrack wget", plus sieve-before when
#                SIEVE_BEFORE is set); runs alternate between the tools
#   env KEEP_OUTPUT  when 1, each run's crawled copy (out/ or files/, 1 GB a run on the default
#                site) stays in the work directory; by default only its log and timing stay
#   env HTTRACK_SECONDS  httrack's own time limit (-E, default 60): here it receives response
#                headers a few bytes per 10 ms wake-up, about one file a second, and would
#                need hours for the site; its pages/s is then the files it finished in that
#                time, and its URL count is partial.
#
# Needs (bench only, not the test install): apt-get install nginx-light wget2 httrack
#   openjdk-17-doc   (wget is in Debian's base system).
#
# Every tool starts from the same seed, stays on 127.0.0.1:PORT, obeys robots.txt (the site has
# none: nginx answers 404, so everything is allowed), and gets 4 connections where it has the
# option: sieve --concurrency 4 --per-host-connections 4 --delay 0; wget2 --max-threads=4;
# httrack -c4 (with its rate limits lifted: --disable-security-limits, which otherwise caps it
# at 5 connections/s and 10 MB/s, -%c1000 connections/s, -A1000000000 bytes/s);
# wget has one connection only. Measured per run with GNU time: wall seconds, user+system CPU
# seconds, peak RSS; pages/s = URLs fetched / wall seconds. URL-set size: records in
# pages.jsonl for sieve, files written for the others.
set -euo pipefail

SIEVE=${1:-build/release/crawler/sieve}
DOCROOT=${DOCROOT:-/usr/share/doc/openjdk-17-jre-headless/api}
RUNS=${RUNS:-3}
SIEVE_BEFORE=${SIEVE_BEFORE:-}
TOOLS=${TOOLS:-"sieve${SIEVE_BEFORE:+ sieve-before} wget2 httrack wget"}
PROFILE=${PROFILE:-0}
PORT=${PORT:-18089}
HTTRACK_SECONDS=${HTTRACK_SECONDS:-60}
KEEP_OUTPUT=${KEEP_OUTPUT:-0}
SEED_PATH=${SEED_PATH:-/index.html}

for tool in nginx /usr/bin/time; do
  command -v "$tool" > /dev/null || { echo "missing $tool (see the header of $0)" >&2; exit 2; }
done
[ -d "$DOCROOT" ] || { echo "missing $DOCROOT (apt-get install openjdk-17-doc)" >&2; exit 2; }
SIEVE=$(realpath "$SIEVE")
[ -z "$SIEVE_BEFORE" ] || SIEVE_BEFORE=$(realpath "$SIEVE_BEFORE")

WORK=$(mktemp -d /tmp/sieve-crawl-bench-XXXXXX)
cleanup() {
  [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2> /dev/null || true
}
trap cleanup EXIT

mkdir -p "$WORK/logs"
cat > "$WORK/nginx.conf" <<NGINX
worker_processes 2;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  include /etc/nginx/mime.types;
  client_body_temp_path $WORK/tmp;
  server {
    listen 127.0.0.1:$PORT;
    root $DOCROOT;
    location / { try_files \$uri \$uri/ =404; }
  }
}
NGINX
mkdir -p "$WORK/tmp"
nginx -c "$WORK/nginx.conf" -p "$WORK"
SEED="http://127.0.0.1:$PORT$SEED_PATH"
curl -fsS -o /dev/null "$SEED" || { echo "nginx does not serve $SEED" >&2; exit 1; }
echo "site: $DOCROOT ($(find "$DOCROOT" -name '*.html' | wc -l) HTML files), seed $SEED"

# The crawl command of sieve or sieve-before, writing into DIR/out. The outlink cap is lifted:
# the build before 2026-11-22 capped it at 1,000 links a page, which cuts real index pages.
sieve_command() {  # tool dir
  local binary=$SIEVE flags=
  [ "$1" = sieve-before ] && binary=$SIEVE_BEFORE flags=${SIEVE_BEFORE_FLAGS:-}
  echo "$SEED" > "$2/seeds.txt"
  printf '[crawl]\nmax_outlinks_per_page = 100000\n' > "$2/config.toml"
  echo "$binary crawl --config $2/config.toml --seeds $2/seeds.txt --out $2/out --delay 0" \
    "--concurrency 4 --per-host-connections 4 --expected-urls 1000000 --log-level warn $flags"
}

run_tool() {  # tool dir -> prints "wall cpu rss_kb urls"
  local tool=$1 dir=$2
  mkdir -p "$dir"
  local timing="$dir/time.txt"
  case $tool in
    sieve | sieve-before)
      /usr/bin/time -f "%e %U %S %M" -o "$timing" $(sieve_command "$tool" "$dir") \
        > "$dir/log.txt" 2>&1
      urls=$(wc -l < "$dir/out/pages.jsonl")
      ;;
    wget)
      /usr/bin/time -f "%e %U %S %M" -o "$timing" wget --recursive --level=inf --no-verbose \
        -e robots=on -P "$dir/files" "$SEED" > "$dir/log.txt" 2>&1 || true
      urls=$(find "$dir/files" -type f | wc -l)
      ;;
    wget2)
      /usr/bin/time -f "%e %U %S %M" -o "$timing" wget2 --recursive --level=0 --max-threads=4 \
        --robots=on --no-verbose -P "$dir/files" "$SEED" > "$dir/log.txt" 2>&1 || true
      urls=$(find "$dir/files" -type f | wc -l)
      ;;
    httrack)
      /usr/bin/time -f "%e %U %S %M" -o "$timing" httrack "$SEED" -O "$dir/files" -c4 \
        --disable-security-limits '-%c1000' -A1000000000 "-E$HTTRACK_SECONDS" -r99999 -q -s2 "+127.0.0.1:$PORT/*" > "$dir/log.txt" 2>&1 || true
      urls=$( (find "$dir/files/127.0.0.1_$PORT" -type f 2> /dev/null || true) | wc -l)
      ;;
  esac
  # GNU time writes "Command exited with non-zero status N" first when the tool fails (wget
  # exits 8 after any 404); the figures are on the last line.
  read -r wall user sys rss < <(tail -n 1 "$timing")
  echo "$wall $(echo "$user + $sys" | bc) $rss $urls"
}

RESULTS="$WORK/results.txt"
: > "$RESULTS"
present=()
for tool in $TOOLS; do
  case $tool in
    sieve) present+=("$tool") ;;
    sieve-before) [ -n "$SIEVE_BEFORE" ] && present+=("$tool") ;;
    *) if command -v "$tool" > /dev/null; then present+=("$tool"); else echo "skip $tool: not installed"; fi ;;
  esac
done
for run in $(seq 1 "$RUNS"); do
  for tool in "${present[@]}"; do
    line=$(run_tool "$tool" "$WORK/$tool-$run")
    echo "$tool run $run: wall cpu rss_kb urls = $line"
    echo "$tool $line" >> "$RESULTS"
    [ "$KEEP_OUTPUT" = 1 ] || rm -rf "$WORK/$tool-$run/out" "$WORK/$tool-$run/files"
  done
done

python3 - "$RESULTS" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    tool, wall, cpu, rss, urls = line.split()
    rows.setdefault(tool, []).append((float(wall), float(cpu), int(rss), int(urls)))
med = {}
print("\n| tool | pages/s | wall s | CPU s | CPU s / 1000 pages | peak RSS MB | URLs |")
print("|---|---|---|---|---|---|---|")
for tool, runs in rows.items():
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    rss = statistics.median(r[2] for r in runs) / 1024
    urls = statistics.median(r[3] for r in runs)
    rate = statistics.median(r[3] / r[0] for r in runs)
    per_k = statistics.median(1000 * r[1] / r[3] for r in runs)
    med[tool] = (rate, per_k)
    print(f"| {tool} | {rate:,.0f} | {wall:.2f} | {cpu:.2f} | {per_k:.3f} | {rss:.1f} | {urls:,.0f} |")
if "sieve" in med:
    print()
    if "sieve-before" in med:
        print(f"sieve / sieve-before CPU per page: {med['sieve'][1] / med['sieve-before'][1]:.2f}x; "
              f"pages/s: {med['sieve'][0] / med['sieve-before'][0]:.2f}x")
    for other in ("httrack", "wget2", "wget"):
        if other in med:
            print(f"sieve / {other} pages/s: {med['sieve'][0] / med[other][0]:.2f}x")
PY
echo "(medians of $RUNS runs; work files in $WORK)"

if [ "$PROFILE" = 1 ]; then
  for tool in "${present[@]}"; do
    case $tool in sieve | sieve-before) ;; *) continue ;; esac
    dir="$WORK/$tool-profile"
    mkdir -p "$dir"
    perf record -F 999 -g -o "$dir/perf.data" -- $(sieve_command "$tool" "$dir") \
      > "$dir/log.txt" 2>&1
    echo -e "\n$tool: top 10 symbols (self, whole process; $(wc -l < "$dir/out/pages.jsonl") pages)"
    # (awk reads to the end: `head` would end the pipe early, which pipefail counts as failure)
    perf report -i "$dir/perf.data" --no-children --sort dso,sym --stdio 2> /dev/null |
      awk '/^ +[0-9.]+%/ && n++ < 10'
    echo "$tool: share by library"
    perf report -i "$dir/perf.data" --no-children --sort dso --stdio 2> /dev/null |
      awk '/^ +[0-9.]+%/ && n++ < 8'
    [ "$KEEP_OUTPUT" = 1 ] || rm -rf "$dir/out"
  done
fi
