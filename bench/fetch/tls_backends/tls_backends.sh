#!/usr/bin/env bash
# Client CPU of the TLS backends of Debian 12's libcurl 7.88, side by side in one invocation:
# OpenSSL (libcurl.so.4, what Sieve links), GnuTLS (libcurl-gnutls.so.4) and NSS
# (libcurl-nss.so.4). An experiment, not part of the build.
#
# Usage: bench/fetch/tls_backends/tls_backends.sh
#   env RUNS      runs per backend, interleaved (default 3); medians are reported
#   env CONNS     new connections per run and variant (default 2000)
#   env REQUESTS  requests on one kept connection per run and page (default 20000)
#   env PORT      HTTP port on 127.0.0.1; HTTPS is PORT+363 (default 18080, so 18443)
#   env CPU       the one CPU both nginx and the client are pinned to (taskset; default 0). Unpinned,
#                 the CPU per request on a kept connection is bimodal on this 2-core VM, about 12
#                 or about 49 µs over HTTP from one process to the next (presumably as the two
#                 land on one CPU or on two); pinned, every run gave the first.
#
# What it measures (tls_backends.cc says how): the client's user+system CPU (getrusage) in µs
#   per new HTTPS connection (full handshake, verify on; the server refuses session resumption),
#   with the test CA alone as CURLOPT_CAINFO and with Debian's bundle plus the test CA; per new
#   HTTP connection; per request on one kept connection over HTTPS and HTTP, for a 1.5 KB page
#   (a broad-web page, bench/crawler/broad_web/) and a 20 KB page. The server is nginx on
#   127.0.0.1 (one worker, TLS 1.2 and 1.3, an ECDSA P-256 leaf signed by a test CA made here
#   with openssl, as in bench/crawler/broad_web/broad_web_bench.sh).
# Needs: g++, nginx, openssl, python3, taskset (util-linux), and the packages libcurl4 (with
#   libcurl4-openssl-dev for the header), libcurl3-gnutls, libcurl3-nss. No root: loopback only,
#   files in a temp dir. Prints each run's line, then a table of medians (see docs/benchmarks.md,
#   "TLS backends of Debian's libcurl").
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-3}
CONNS=${CONNS:-2000}
REQUESTS=${REQUESTS:-20000}
PORT=${PORT:-18080}
CPU=${CPU:-0}
TLS_PORT=$((PORT + 363))
LIBDIR=/usr/lib/x86_64-linux-gnu
BACKENDS="openssl gnutls nss"
declare -A LIB=([openssl]=libcurl.so.4 [gnutls]=libcurl-gnutls.so.4 [nss]=libcurl-nss.so.4)

WORK=$(mktemp -d /tmp/tls_backends.XXXXXX)
chmod 755 "$WORK"  # nginx started by root serves as nobody
cleanup() {
  if [ -f "$WORK/nginx.pid" ]; then kill "$(cat "$WORK/nginx.pid")" 2> /dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

for backend in $BACKENDS; do
  g++ -std=c++17 -O2 -Wall -Wextra -Werror "$HERE/tls_backends.cc" "$LIBDIR/${LIB[$backend]}" \
    -o "$WORK/tls_backends-$backend"
done

"$HERE/../../lib/make_test_ca.sh" "$WORK" "tls backends bench CA" "IP:127.0.0.1"
(
  cd "$WORK"
  cat /etc/ssl/certs/ca-certificates.crt ca.pem > bundle.pem
  mkdir -p site tmp
  python3 -c 'import sys; sys.stdout.write("<p>" + "x" * 1500 + "</p>\n")' > site/small
  python3 -c 'import sys; sys.stdout.write("<p>" + "y" * 20000 + "</p>\n")' > site/20k
)

cat > "$WORK/nginx.conf" << NGINX
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  default_type text/html;
  client_body_temp_path $WORK/tmp;
  proxy_temp_path $WORK/tmp;
  fastcgi_temp_path $WORK/tmp;
  uwsgi_temp_path $WORK/tmp;
  scgi_temp_path $WORK/tmp;
  keepalive_timeout 75s;
  keepalive_requests 1000000;
  ssl_certificate $WORK/server.pem;
  ssl_certificate_key $WORK/server.key;
  ssl_protocols TLSv1.2 TLSv1.3;
  ssl_session_cache off;
  ssl_session_tickets off;
  server {
    listen 127.0.0.1:$PORT;
    listen 127.0.0.1:$TLS_PORT ssl;
    root $WORK/site;
    location = /proto { default_type text/plain; return 200 "\$ssl_protocol \$ssl_cipher \$ssl_curve\n"; }
  }
}
NGINX
taskset -c "$CPU" nginx -c "$WORK/nginx.conf" -p "$WORK" -e "$WORK/error.log"
sleep 0.3

echo "libcurl $(curl-config --version 2> /dev/null | cut -d' ' -f2); $CONNS connections and $REQUESTS requests per run; runs: $RUNS; nginx and client on CPU $CPU"
for run in $(seq 1 "$RUNS"); do
  for backend in $BACKENDS; do
    line=$(taskset -c "$CPU" "$WORK/tls_backends-$backend" "https://127.0.0.1:$TLS_PORT" "http://127.0.0.1:$PORT" \
      "$WORK/ca.pem" "$WORK/bundle.pem" "$CONNS" "$REQUESTS")
    echo "backend=$backend run=$run $line load1=$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$WORK/results.txt"
  done
done

python3 - "$WORK/results.txt" << 'PY'
import shlex, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    kv = dict(item.split("=", 1) for item in shlex.split(line))
    rows.setdefault(kv["backend"], []).append(kv)
cols = ["conn_https_ca", "conn_https_bundle", "conn_http", "req_https_small", "req_http_small",
        "req_https_20k", "req_http_20k"]
print("\n| backend | TLS library | negotiated | load1 | " +
      " | ".join(c + " µs" for c in cols) + " |")
print("|---" * (len(cols) + 4) + "|")
for backend, runs in rows.items():
    med = {c: statistics.median(float(r[c]) for r in runs) for c in cols}
    loads = [float(r["load1"]) for r in runs]
    print(f"| {backend} | {runs[0]['ssl']} | {runs[0]['proto']} | {min(loads):.1f}-{max(loads):.1f} | " +
          " | ".join(f"{med[c]:.1f}" if c.startswith("conn") else f"{med[c]:.2f}" for c in cols) + " |")
PY
