#!/usr/bin/env bash
# Quick-start command 2: install what is missing, build under ASan+UBSan, run every test; then the
# concurrency tests under TSan. Exits non-zero on the first failure. .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset asan
cmake --build --preset asan
ctest --preset asan
cmake --preset tsan
cmake --build --preset tsan
ctest --preset tsan
