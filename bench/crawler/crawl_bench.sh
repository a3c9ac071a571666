#!/usr/bin/env bash
# bench/crawler/crawl_bench.sh: `sieve crawl` beside wget --recursive, wget2 and httrack on one
# static site of real, human-written HTML served by nginx on 127.0.0.1.
#
# Usage: bench/crawler/crawl_bench.sh [SIEVE_BINARY]     (default: build/release/crawler/sieve)
#   env DOCROOT  site to serve (default: the Java SE 17 API documentation of openjdk-17-doc,
#                /usr/share/doc/openjdk-17-jre-headless/api: 10,137 HTML files, 287 MB, the
#                OpenJDK authors' documentation comments rendered by javadoc). Smaller trees:
#                libstdc++-12-doc's /usr/share/doc/gcc-12-base/libstdc++ (3,906 HTML files),
#                libboost1.74-doc's /usr/share/doc/libboost1.74-doc/doc/html (3,805).
#   env RUNS     runs per tool; the table shows medians (default 3)
#   env TOOLS    which tools (default "sieve wget2 httrack wget")
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
TOOLS=${TOOLS:-"sieve wget2 httrack wget"}
PORT=${PORT:-18089}
HTTRACK_SECONDS=${HTTRACK_SECONDS:-60}
SEED_PATH=${SEED_PATH:-/index.html}

for tool in nginx /usr/bin/time; do
  command -v "$tool" > /dev/null || { echo "missing $tool (see the header of $0)" >&2; exit 2; }
done
[ -d "$DOCROOT" ] || { echo "missing $DOCROOT (apt-get install openjdk-17-doc)" >&2; exit 2; }
SIEVE=$(realpath "$SIEVE")

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

run_tool() {  # tool dir -> prints "wall cpu rss_kb urls"
  local tool=$1 dir=$2
  mkdir -p "$dir"
  local timing="$dir/time.txt"
  case $tool in
    sieve)
      echo "$SEED" > "$dir/seeds.txt"
      /usr/bin/time -f "%e %U %S %M" -o "$timing" "$SIEVE" crawl --seeds "$dir/seeds.txt" \
        --out "$dir/out" --delay 0 --concurrency 4 --per-host-connections 4 \
        --expected-urls 1000000 --log-level warn > "$dir/log.txt" 2>&1
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
for tool in $TOOLS; do
  command -v "$tool" > /dev/null || [ "$tool" = sieve ] || { echo "skip $tool: not installed"; continue; }
  for run in $(seq 1 "$RUNS"); do
    line=$(run_tool "$tool" "$WORK/$tool-$run")
    echo "$tool run $run: wall cpu rss_kb urls = $line"
    echo "$tool $line" >> "$RESULTS"
  done
done

python3 - "$RESULTS" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    tool, wall, cpu, rss, urls = line.split()
    rows.setdefault(tool, []).append((float(wall), float(cpu), int(rss), int(urls)))
med = {}
print("\n| tool | pages/s | wall s | CPU s | peak RSS MB | URLs |")
print("|---|---|---|---|---|---|")
for tool, runs in rows.items():
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    rss = statistics.median(r[2] for r in runs) / 1024
    urls = statistics.median(r[3] for r in runs)
    rate = statistics.median(r[3] / r[0] for r in runs)
    med[tool] = rate
    print(f"| {tool} | {rate:.0f} | {wall:.2f} | {cpu:.2f} | {rss:.1f} | {urls:.0f} |")
if "sieve" in med:
    for other in ("httrack", "wget2", "wget"):
        if other in med:
            print(f"\nsieve / {other} pages/s: {med['sieve'] / med[other]:.2f}x")
PY
echo "(medians of $RUNS runs; work files in $WORK)"
