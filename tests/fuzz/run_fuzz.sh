#!/usr/bin/env bash
# Fuzzes the GGUF reader for SECONDS in BUILD_DIR, a build directory
# configured with clang and -DTESSERA_FUZZ=ON (TESSERA_SANITIZE=ON adds ASan
# and UBSan). Builds the fuzzer and the seed corpus first. New inputs are kept
# in BUILD_DIR/tests/fuzz/corpus, crash inputs in BUILD_DIR/tests/fuzz/artifacts.
# Exits non-zero when the fuzzer finds a crash, leak, UB report or timeout.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
build=$1 seconds=$2
here=$(cd "$(dirname "$0")" && pwd)

cmake --build "$build" -j"$(nproc)" --target gguf_reader_fuzz gguf_fuzz_seeds
dir="$build/tests/fuzz"
mkdir -p "$dir/corpus" "$dir/artifacts"
# ASan/UBSan must stop at the first report so libFuzzer records it as a crash.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
exec "$dir/gguf_reader_fuzz" "$dir/corpus" "$dir/seeds" \
  -dict="$here/gguf.dict" \
  -max_total_time="$seconds" \
  -max_len=1048576 \
  -rss_limit_mb=4096 \
  -timeout=10 \
  -artifact_prefix="$dir/artifacts/" \
  -print_final_stats=1
