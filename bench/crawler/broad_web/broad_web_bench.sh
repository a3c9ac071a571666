#!/usr/bin/env bash
# bench/crawler/broad_web/broad_web_bench.sh: `sieve crawl` beside Scrapy on a broad web built on
# this machine: HOSTS hosts hNNNNN.web.test x PAGES static pages with cross-host links, each host
# on its own loopback address given by a real DNS server, over HTTP and HTTPS.
#
# Usage: bench/crawler/broad_web/broad_web_bench.sh [SIEVE_BINARY]  (default: build/release/crawler/sieve)
#   env HOSTS    space-separated host counts (default "1000")
#   env PAGES    pages per host (default 20)
#   env SCHEMES  (default "http https")
#   env TOOLS    (default "sieve scrapy", plus sieve-before when SIEVE_BEFORE is set); runs
#                alternate between the tools. Tool scrapy-sieve is the same Scrapy spider with
#                SCHEDULER = "sieve.scrapy.Scheduler" and sieve.scrapy.FrontierMiddleware
#                (docs/python.md): SIEVE_DELAY = DELAY, DOWNLOAD_DELAY = 0 (the frontier holds
#                the delay; Scrapy's own would only slow it), the package from SIEVE_PYTHONPATH
#   env SIEVE_PYTHONPATH  where `import sieve` finds the package for scrapy-sieve (default: the
#                build tree's, python/ beside the sieve binary's crawler/: build/release/python,
#                built by `cmake --build --preset release --target _sieve`)
#   env SIEVE_BEFORE  a second sieve binary (an older build), run as tool "sieve-before" with the
#                same flags, so the two are measured side by side in one run
#   env RUNS     runs per (hosts, scheme, tool); the table shows medians (default 1)
#   env SCRAPY_RUNS  Scrapy's runs (scrapy and scrapy-sieve), the first ones of the RUNS
#                (default RUNS): it is slow
#   env DELAY    seconds between two requests to one host, both crawlers (default 0.5)
#   env CONCURRENCY  Sieve's --concurrency (default 64); Scrapy keeps its docs' 100
#   env CRAWL_DELAY_EVERY  every Nth host's robots.txt says Crawl-delay: 1 (default 20; 0 = none)
#   env SIEVE_FLAGS  more flags for sieve crawl
#   env KEEPALIVE  nginx's keepalive_timeout in seconds (default 75, nginx's own default)
#   env TLS_PROTOCOLS  nginx's ssl_protocols (default "TLSv1.2 TLSv1.3": TLS 1.3 is what a
#                server of today speaks, nginx itself by default since 1.23.4 and Debian 12's own
#                /etc/nginx/nginx.conf; nginx 1.22's built-in default, "TLSv1 TLSv1.1 TLSv1.2", was
#                the benchmark's until 26 Nov 2026 (docs/benchmarks.md): TLS_PROTOCOLS="TLSv1.2"
#                measures that way again)
#   (each run's line also has tls_protocols, connections by TLS version from nginx's
#   $ssl_protocol, and load1, the load average when the run ended)
#   env PROFILE  when 1, each sieve run is recorded with `perf record` (perf.data in its dir)
#   env PERF_CALL_GRAPH  perf's --call-graph for PROFILE=1 (default fp; dwarf names the callers
#                inside Debian's libraries, which are built without frame pointers)
#   env PERF_FREQ  perf's samples per second for PROFILE=1 (default 499)
#   env PIN      "0" (default: no pinning), "1" (pinned), or "0 1" (both, alternating, in one
#                invocation). Pinned, the crawler (every tool, all its threads: `taskset -c` on its
#                command) runs on CLIENT_CPUS and nginx and dnsmasq on SERVER_CPUS, so the
#                server's work (TLS handshakes, encryption) does not share the crawler's cores, as
#                on the real web; a pinned run's tool is named TOOL+pin in the table, and the allowed
#                CPUs of nginx, dnsmasq and the crawler's threads are written to pin.txt in its dir
#                (the CPU bound of a pinned run counts CLIENT_CPUS' cores)
#   env CLIENT_CPUS  the crawler's CPU list for PIN=1, taskset's syntax (default 0)
#   env SERVER_CPUS  nginx's and dnsmasq's CPU list for PIN=1 (default 1)
#
# Needs root (it makes its own network and mount namespace with `unshare --net --mount`; nothing
# outside the namespace is touched) and: nginx-light, dnsmasq-base, python3-scrapy, openssl, time.
# Without root it says so and exits 0.
#
# Inside the namespace: loopback up; dnsmasq on 127.0.0.1 answers hNNNNN.web.test ->
# 127.1.(N/250).(N%250+1) from a hosts file (TTL 3600 s) and logs every query; /etc/resolv.conf
# points at it (bind mount). A test CA signs one *.web.test certificate; the system's CA bundle
# with the test CA appended is bind-mounted over /etc/ssl/certs/ca-certificates.crt, so both
# crawlers trust it through the system bundle.
# nginx (one worker) serves every host from SITE/$host on ports 80 and 443, keep-alive KEEPALIVE,
# and logs each request: end time, duration, host, URI, status, connection serial number,
# requests on that connection, $ssl_session_reused. Every figure except wall, CPU (user and
# system apart too), peak RSS and minor page faults (GNU time) comes from those two logs, the same
# way for both crawlers (bench/crawler/broad_web/broad_web.py):
#   connections/host  distinct nginx connections / hosts
#   TLS full/resumed  $ssl_session_reused of each connection's first request
#   politeness violations  a host's request starting less than its delay (max of DELAY and its
#                     Crawl-delay) after the end of its previous one (2 ms slack for nginx's clock)
#   duplicate requests  requests for a (host, URI) already asked
#   DNS queries       questions dnsmasq logged (A and AAAA count apart)
#   politeness bound  pages / (the slowest host's (requests - 1) x delay): hosts / delay when all
#                     hosts share one delay
#   CPU bound         cores x pages / the crawler's CPU seconds
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" != 0 ]; then
  echo "skip: the broad-web benchmark needs root (it makes its own network namespace with" \
    "unshare --net --mount)"
  exit 0
fi
for tool in unshare ip mount nginx dnsmasq openssl taskset /usr/bin/time /usr/bin/python3; do
  command -v "$tool" > /dev/null || { echo "missing $tool (see the header of $0)" >&2; exit 2; }
done

if [ -z "${BROAD_WEB_IN_NETNS:-}" ]; then
  SIEVE=$(realpath "${1:-build/release/crawler/sieve}")
  [ -x "$SIEVE" ] || { echo "no sieve binary at $SIEVE" >&2; exit 2; }
  [ -z "${SIEVE_BEFORE:-}" ] || SIEVE_BEFORE=$(realpath "$SIEVE_BEFORE")
  SIEVE_PYTHONPATH=$(realpath -m "${SIEVE_PYTHONPATH:-$(dirname "$SIEVE")/../python}")
  exec env BROAD_WEB_IN_NETNS=1 SIEVE_BEFORE="${SIEVE_BEFORE:-}" SIEVE_PYTHONPATH="$SIEVE_PYTHONPATH" \
    unshare --net --mount -- "$0" "$SIEVE"
fi
SIEVE=$1
SIEVE_BEFORE=${SIEVE_BEFORE:-}

HOSTS=${HOSTS:-1000}
PAGES=${PAGES:-20}
SCHEMES=${SCHEMES:-"http https"}
TOOLS=${TOOLS:-"sieve${SIEVE_BEFORE:+ sieve-before} scrapy"}
case " $TOOLS " in
  *" scrapy-sieve "*)
    PYTHONPATH=$SIEVE_PYTHONPATH /usr/bin/python3 -c "import sieve.scrapy" || {
      echo "scrapy-sieve: no sieve package in $SIEVE_PYTHONPATH (build the _sieve target)" >&2
      exit 2
    }
    ;;
esac
RUNS=${RUNS:-1}
SCRAPY_RUNS=${SCRAPY_RUNS:-$RUNS}
KEEPALIVE=${KEEPALIVE:-75}
TLS_PROTOCOLS=${TLS_PROTOCOLS:-"TLSv1.2 TLSv1.3"}
DELAY=${DELAY:-0.5}
CONCURRENCY=${CONCURRENCY:-64}
CRAWL_DELAY_EVERY=${CRAWL_DELAY_EVERY:-20}
SIEVE_FLAGS=${SIEVE_FLAGS:-}
PROFILE=${PROFILE:-0}
PERF_CALL_GRAPH=${PERF_CALL_GRAPH:-fp}
PERF_FREQ=${PERF_FREQ:-499}
PIN=${PIN:-0}
CLIENT_CPUS=${CLIENT_CPUS:-0}
SERVER_CPUS=${SERVER_CPUS:-1}
CORES=$(nproc)
PY=/usr/bin/python3

ip link set lo up
ulimit -n 1048576 2> /dev/null || ulimit -n "$(ulimit -Hn)"
WORK=$(mktemp -d /tmp/sieve-broad-web-XXXXXX)
echo "work files in $WORK"
cleanup() {
  for pid in "$WORK"/*.pid; do
    [ -f "$pid" ] && kill "$(cat "$pid")" 2> /dev/null || true
  done
}
trap cleanup EXIT

echo "nameserver 127.0.0.1" > "$WORK/resolv.conf"
mount --bind "$WORK/resolv.conf" /etc/resolv.conf

# The test CA and one certificate for every *.web.test host.
"$HERE/../../lib/make_test_ca.sh" "$WORK" "broad web bench CA" "DNS:*.web.test"
# The system's bundle (145 CAs in Debian 12) plus the test CA: what a crawler loads on the real web.
cat /etc/ssl/certs/ca-certificates.crt "$WORK/ca.pem" > "$WORK/ca-bundle.crt"
mount --bind "$WORK/ca-bundle.crt" /etc/ssl/certs/ca-certificates.crt

start_dns() {  # hosts_file log
  rm -f "$2"
  # --local: dnsmasq answers for web.test itself, as a real zone's server does (NODATA for the
  # AAAA of a name with only an A record, NXDOMAIN for an unknown name); without it, having no
  # upstream server, it REFUSES every AAAA, and c-ares (Sieve's resolver) asks once more.
  "${SERVER_PIN[@]}" dnsmasq --no-resolv --no-hosts --addn-hosts="$1" --local=/web.test/ \
    --local-ttl=3600 --listen-address=127.0.0.1 --bind-interfaces --user=root --log-queries \
    --log-async=100 --log-facility="$2" --pid-file="$WORK/dnsmasq.pid" --cache-size=10000
}
stop_pid() {  # pidfile
  local pid
  pid=$(cat "$1")
  kill "$pid"
  while kill -0 "$pid" 2> /dev/null; do sleep 0.05; done
  rm -f "$1"
}

start_nginx() {  # site_dir log
  mkdir -p "$WORK/nginx-tmp"
  cat > "$WORK/nginx.conf" <<NGINX
user root;
worker_processes 1;
worker_rlimit_nofile 200000;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 60000; }
http {
  log_format bench '\$msec \$request_time \$host \$request_uri \$status \$connection '
                   '\$connection_requests \$ssl_session_reused \$ssl_protocol';
  access_log $2 bench buffer=1m flush=5s;
  types { text/html html; text/plain txt; }
  client_body_temp_path $WORK/nginx-tmp;
  keepalive_timeout ${KEEPALIVE}s;
  keepalive_requests 1000;
  ssl_certificate $WORK/server.pem;
  ssl_certificate_key $WORK/server.key;
  ssl_session_cache shared:bench:64m;
  ssl_session_timeout 1h;
  ssl_protocols ${TLS_PROTOCOLS};
  server {
    listen 80 backlog=4096;
    listen 443 ssl backlog=4096;
    root $1/\$host;
  }
}
NGINX
  "${SERVER_PIN[@]}" nginx -c "$WORK/nginx.conf" -p "$WORK" -e "$WORK/nginx-error.log"
}

show_pinning() {  # dir: the CPUs each server process and the crawler's threads may run on
  local pid tid
  sleep 2  # the crawler is under way
  for pid in $(cat "$WORK/nginx.pid" "$WORK/dnsmasq.pid") \
    $(pgrep -P "$(cat "$WORK/nginx.pid")"); do
    echo "server $(cat /proc/"$pid"/comm) $pid: $(grep Cpus_allowed_list /proc/"$pid"/status)"
  done
  # The crawler: the child of this run's GNU time, and each of its threads.
  for pid in $(pgrep -x time); do
    tr '\0' ' ' < /proc/"$pid"/cmdline | grep -qF -- "-o $1/time.txt " || continue
    for tid in /proc/"$(pgrep -P "$pid")"/task/*; do
      echo "crawler $(cat "$tid"/comm) ${tid##*/}: $(grep Cpus_allowed_list "$tid"/status)"
    done
  done
}
SERVER_PIN=()
RESULTS="$WORK/results.jsonl"
: > "$RESULTS"
for hosts in $HOSTS; do
  web="$WORK/web-$hosts"
  mkdir -p "$web"
  $PY "$HERE/broad_web.py" site "$web" "$hosts" "$PAGES" "$CRAWL_DELAY_EVERY"
  echo "web: $hosts hosts x $PAGES pages (Crawl-delay: 1 on every Nth host, N = $CRAWL_DELAY_EVERY; 0 = none)"
  for run in $(seq 1 "$RUNS"); do
    for scheme in $SCHEMES; do
      awk -v s="$scheme" '{ print s "://" $2 "/" }' "$web/hosts" > "$web/seeds-$scheme.txt"
      for pin in $PIN; do
        for tool in $TOOLS; do
          case $tool in scrapy*) [ "$run" -gt "$SCRAPY_RUNS" ] && continue ;; esac
          label=$tool
          SERVER_PIN=()
          cores=$CORES
          if [ "$pin" = 1 ]; then
            label=$tool+pin
            SERVER_PIN=(taskset -c "$SERVER_CPUS")
            cores=$(taskset -c "$CLIENT_CPUS" nproc)
          fi
          dir="$WORK/$hosts-$scheme-$label-$run"
          mkdir -p "$dir"
          start_dns "$web/hosts" "$dir/dns.log"
          start_nginx "$web/site" "$dir/access.log"
          case $tool in
            sieve | sieve-before)
              binary=$SIEVE
              [ "$tool" = sieve-before ] && binary=$SIEVE_BEFORE
              cmd=("$binary" crawl --seeds "$web/seeds-$scheme.txt" --out "$dir/out" --delay "$DELAY"
                --concurrency "$CONCURRENCY" --log-level warn $SIEVE_FLAGS)
              ;;
            scrapy)
              cmd=(/usr/bin/scrapy runspider "$HERE/broad_web_spider.py" -a "seeds=$web/seeds-$scheme.txt"
                -s "DOWNLOAD_DELAY=$DELAY")
              ;;
            scrapy-sieve)
              cmd=(env PYTHONPATH="$SIEVE_PYTHONPATH" /usr/bin/scrapy runspider
                "$HERE/broad_web_spider.py" -a "seeds=$web/seeds-$scheme.txt"
                -s SCHEDULER=sieve.scrapy.Scheduler
                -s 'DOWNLOADER_MIDDLEWARES={"sieve.scrapy.FrontierMiddleware": 950}'
                -s "SIEVE_DELAY=$DELAY" -s DOWNLOAD_DELAY=0)
              ;;
          esac
          if [ "$PROFILE" = 1 ] && [ "${tool#scrapy}" = "$tool" ]; then
            cmd=(perf record -F "$PERF_FREQ" --call-graph "$PERF_CALL_GRAPH" -o "$dir/perf.data" --
              "${cmd[@]}")
          fi
          if [ "$pin" = 1 ]; then
            cmd=(taskset -c "$CLIENT_CPUS" "${cmd[@]}")
            show_pinning "$dir" > "$dir/pin.txt" 2>&1 &
          fi
          (cd "$dir" && /usr/bin/time -v -o "$dir/time.txt" "${cmd[@]}" > "$dir/log.txt" 2>&1) ||
            echo "$tool exited non-zero (see $dir/log.txt)"
          wait
          stop_pid "$WORK/nginx.pid"
          stop_pid "$WORK/dnsmasq.pid"
          line=$($PY "$HERE/broad_web.py" run "$dir/access.log" "$dir/dns.log" "$dir/time.txt" \
            "$hosts" "$DELAY" "$CRAWL_DELAY_EVERY" "$cores" "$dir/log.txt")
          line=$(echo "$line" | $PY -c 'import json,sys; r=json.load(sys.stdin); r.update(hosts=int(sys.argv[1]), scheme=sys.argv[2], tool=sys.argv[3], run=int(sys.argv[4]), load1=float(sys.argv[5])); print(json.dumps(r))' \
            "$hosts" "$scheme" "$label" "$run" "$(cut -d' ' -f1 /proc/loadavg)")
          echo "$line" >> "$RESULTS"
          echo "$hosts $scheme $label run $run: $line"
          if [ -f "$dir/pin.txt" ]; then sed 's/^/  pinned: /' "$dir/pin.txt"; fi
        done
      done
    done
  done
  rm -rf "$web/site"
done

echo
echo "(medians of $RUNS run(s), Scrapy $SCRAPY_RUNS; delay $DELAY s; sieve --concurrency" \
  "$CONCURRENCY $SIEVE_FLAGS; nginx keepalive ${KEEPALIVE} s, ssl_protocols $TLS_PROTOCOLS;" \
  "$CORES cores; load average $(cut -d' ' -f1-3 /proc/loadavg); results in $RESULTS)"
$PY "$HERE/broad_web.py" table "$RESULTS"
