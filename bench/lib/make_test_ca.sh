#!/usr/bin/env bash
# bench/lib/make_test_ca.sh: a throwaway test CA and one server certificate it signs, for the
# benchmarks' loopback TLS servers (bench/crawler/broad_web, bench/fetch/tls_backends). ECDSA
# P-256 keys, as most of the web's certificates; valid two days.
#
# Usage: bench/lib/make_test_ca.sh DIR "CA NAME" SUBJECT_ALT_NAME
#   e.g. bench/lib/make_test_ca.sh "$WORK" "broad web bench CA" "DNS:*.web.test"
# Writes DIR/ca.pem, DIR/ca.key, DIR/server.pem, DIR/server.key (and the CSR and serial).
set -euo pipefail
if [ $# -ne 3 ]; then
  sed -n '6,8p' "$0" >&2
  exit 2
fi
cd "$1"
CN=${3#*:}
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -subj "/CN=$2" -keyout ca.key -out ca.pem 2> /dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$CN" \
  -keyout server.key -out server.csr 2> /dev/null
printf 'subjectAltName=%s\n' "$3" > san.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
  -extfile san.ext -out server.pem 2> /dev/null
