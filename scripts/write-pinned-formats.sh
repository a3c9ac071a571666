#!/usr/bin/env bash
# Rewrites the pinned Frontier checkpoint tests/testdata/frontier_format_v2/ with today's code
# (tests/frontier/write_frontier_format.cc, the workload of tests/frontier/
# frontier_format_workload.h). Only for a deliberate format change: bump the format's version
# first, make the old image refused by name (frontier_format_test), then run this, into a new
# directory named for the new version: scripts/write-pinned-formats.sh tests/testdata/frontier_format_v3
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-tests/testdata/frontier_format_v2}"
cmake --preset release >/dev/null
cmake --build --preset release --target frontier_write_frontier_format
build/release/tests/frontier/frontier_write_frontier_format "$out"
