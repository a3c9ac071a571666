#!/usr/bin/env bash
# Installs the Debian 12 packages that Sieve's build and tests need; installs nothing when all are
# present. Run as root (or through sudo). Used by both quick-start commands in README.md.
set -euo pipefail

packages=(
  # toolchain
  g++ cmake ninja-build pkg-config git
  # scripts/check_shape.py (function length and members per class, docs/architecture.md):
  # clang-tidy, and clang-query from clang-tools
  clang-tidy clang-tools
  # wget: tests/crawler/crawl/crawl_warc_test.cc compares its WARC archive with ours
  wget
  # openssl: tests/crawler/crawl/crawl_tls_test.cc makes its own CA and server certificate
  openssl
  # dnsmasq: the DNS server of tests/crawler/crawl/crawl_broad_web_test.cc (200 hosts in a
  # network namespace); -base is the program alone, no system service
  dnsmasq-base
  # libraries (found with find_package / pkg-config in cmake/SieveDependencies.cmake)
  libabsl-dev libcurl4-openssl-dev libgumbo-dev libxxhash-dev libtomlplusplus-dev libspdlog-dev
  librocksdb-dev libre2-dev libpsl-dev libidn2-dev nlohmann-json3-dev libcpp-httplib-dev zlib1g-dev
  libexpat1-dev libssl-dev libhiredis-dev
  # c-ares: the crawl's DNS cache (fetch/dns_cache.h) reads each record's TTL, which libcurl's
  # resolver does not give
  libc-ares-dev
  # the URLFrontier gRPC service (sieve frontier serve): libraries, protoc and its gRPC plugins
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  # the shared frontier's store (sieve crawl --cluster); tests/cluster starts its own on loopback,
  # and redis-cli (redis-tools) builds the multi-node Redis Cluster of redis_cluster_crawl_test
  redis-server redis-tools
  # tests and benchmarks (nodejs runs warcio, the independent WARC reader the tests use)
  libgtest-dev libgmock-dev libbenchmark-dev nodejs
  # prometheus (and its promtool): tests/crawler/crawl/crawl_metrics_test.cc checks a live
  # scrape of `sieve crawl --metrics` with promtool and has a real Prometheus scrape a crawl
  prometheus
  # headless Chromium: render/ renders script-built pages with it over the DevTools pipe; its
  # tests (tests/render) skip with a message when it is absent
  chromium-headless-shell
  # the URLFrontier Python client test (tests/frontier/service) runs on Debian's python3
  python3-grpcio python3-protobuf
  # the Python package sieve (python/, docs/python.md): built with pybind11; sieve.scrapy and its
  # tests run Debian's Scrapy 2.8
  pybind11-dev python3-pybind11 python3-scrapy
  # real documentation sites: tests/parse/url_fast_path_test.cc and bench/parse read their HTML
  # (/usr/share/doc/<package>/...); about 360 MB installed, 28 MB downloaded
  postgresql-doc-15 python3-doc openjdk-17-doc
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

# npm ships inside some nodejs builds (NodeSource's); Debian packages it apart.
command -v npm >/dev/null 2>&1 || missing+=(npm)

sudo=""
if ((EUID != 0)); then sudo="sudo"; fi
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# webrecorder's warcio (npm), the WARC reader tests/crawler/output/warcio_test.cc runs on our files
# (skipped when absent). Pinned; installed globally so `warcio` is on PATH.
warcio_version="2.4.11"
if ! command -v warcio >/dev/null 2>&1; then
  echo "install-deps: installing npm warcio@${warcio_version}"
  $sudo npm install -g --no-fund --no-audit "warcio@${warcio_version}"
fi
