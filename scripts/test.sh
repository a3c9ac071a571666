#!/usr/bin/env bash
# Quick-start command 2: install what is missing, build under ASan+UBSan, run every test (the fuzz
# targets too, label fuzz: their seeds and 2,000 fixed mutations each, docs/fuzzing.md); then the
# concurrency tests and the threaded crawl tests under TSan (label tsan); then the Python package
# alone, unsanitized (an ASan module does not load into /usr/bin/python3): the python preset builds
# just sieve._sieve and runs tests/python (label python) on /usr/bin/python3. Exits non-zero on the
# first failure. .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset asan
cmake --build --preset asan
ctest --preset asan
cmake --preset tsan
cmake --build --preset tsan
ctest --preset tsan
cmake --preset python
cmake --build --preset python
ctest --preset python
