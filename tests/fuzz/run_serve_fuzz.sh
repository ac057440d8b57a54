#!/usr/bin/env bash
# Fuzzes tessera serve's request-to-job path (serve_request_fuzz.cpp) for
# SECONDS in BUILD_DIR, a build directory configured with clang and
# -DTESSERA_FUZZ=ON (TESSERA_SANITIZE=ON adds ASan and UBSan). New inputs are
# kept in BUILD_DIR/tests/fuzz/serve_corpus, crash inputs in
# BUILD_DIR/tests/fuzz/serve_artifacts. Exits non-zero on a finding.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
build=$1 seconds=$2
here=$(cd "$(dirname "$0")" && pwd)

cmake --build "$build" -j"$(nproc)" --target serve_request_fuzz
dir="$build/tests/fuzz"
mkdir -p "$dir/serve_corpus" "$dir/serve_artifacts"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
exec "$dir/serve_request_fuzz" "$dir/serve_corpus" "$here/serve_seeds" \
  -dict="$here/serve.dict" \
  -max_total_time="$seconds" \
  -max_len=65536 \
  -rss_limit_mb=2048 \
  -timeout=10 \
  -artifact_prefix="$dir/serve_artifacts/" \
  -print_final_stats=1
