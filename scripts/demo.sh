#!/usr/bin/env bash
# Quick-start command 1: install what is missing, build the release binary, crawl the built-in demo
# site on 127.0.0.1. Extra arguments go to `sieve crawl --demo` (e.g. --max-pages 500).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset release
cmake --build --preset release --target sieve
exec build/release/crawler/sieve crawl --demo "$@"
