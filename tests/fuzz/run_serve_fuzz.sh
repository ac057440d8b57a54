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

source "$here/libfuzzer.sh"

cmake --build "$build" -j"$(nproc)" --target serve_request_fuzz
dir="$build/tests/fuzz"
run_libfuzzer "$dir/serve_request_fuzz" "$dir/serve_corpus" "$here/serve_seeds" "$here/serve.dict" 65536 2048 \
  "$dir/serve_artifacts" "$seconds"
