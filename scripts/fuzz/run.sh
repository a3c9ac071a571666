#!/usr/bin/env bash
# Builds the libFuzzer targets (<module>/fuzz/*_fuzzer.cc) with clang + AddressSanitizer + UndefinedBehaviorSanitizer
# and runs each for the given number of seconds. Exits non-zero if any target finds a crash, a
# leak or a sanitizer report (the reproducer is left in the build dir as crash-*/leak-*).
#
# Usage: scripts/fuzz/run.sh [--seconds N | N]   (seconds per target, default 60)
# Env:   BUILD_DIR (default build/fuzz), JOBS (default 2), FUZZERS (default: all, as
#        module/name: "parse/url parse/link_extractor parse/robots parse/sitemap parse/charset
#        fetch/retry_after filter/filter_image frontier/manifest frontier/host_snapshot
#        crawler/crawl_state crawler/config_toml")
# The test command (scripts/test.sh) does not call this: the asan preset runs the same targets
# as ctest tests (label fuzz) on their seeds and fixed mutations (tests/fuzz/replay_main.cc).
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=60
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="${2:?--seconds needs a number}"; shift 2 ;;
    --seconds=*) seconds="${1#--seconds=}"; shift ;;
    [0-9]*) seconds="$1"; shift ;;
    *) echo "usage: $0 [--seconds N | N]" >&2; exit 2 ;;
  esac
done
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "$0: seconds must be a whole number, got '$seconds'" >&2
  exit 2
fi
build="${BUILD_DIR:-build/fuzz}"
jobs="${JOBS:-2}"
fuzzers="${FUZZERS:-parse/url parse/link_extractor parse/robots parse/sitemap parse/charset
  fetch/retry_after filter/filter_image frontier/manifest frontier/host_snapshot crawler/crawl_state
  crawler/config_toml}"
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIEVE_FUZZ=ON -DSIEVE_BUILD_BENCH=OFF \
  -DCMAKE_C_FLAGS="$sanitize" -DCMAKE_CXX_FLAGS="$sanitize" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
targets=()
for f in $fuzzers; do targets+=("${f%%/*}_${f#*/}_fuzzer"); done
cmake --build "$build" --target "${targets[@]}" -j"$jobs"

status=0
for f in $fuzzers; do
  module="${f%%/*}"
  name="${f#*/}"
  target="${module}_${name}_fuzzer"
  corpus="$build/fuzz-corpus/$f"
  mkdir -p "$corpus" "$build/fuzz-artifacts/$f"
  echo "== $target for ${seconds}s"
  if ! ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1" \
    "$build/$module/fuzz/$target" "$corpus" "$module/fuzz/corpus/$name" \
      -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$f/" \
      2>"$build/fuzz-artifacts/$f/log.txt"; then
    echo "!! $target failed; see $build/fuzz-artifacts/$f/log.txt"
    status=1
  fi
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)" \
    "$build/fuzz-artifacts/$f/log.txt" || true
done
exit "$status"
