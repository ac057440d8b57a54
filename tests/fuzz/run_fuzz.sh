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

source "$here/libfuzzer.sh"

cmake --build "$build" -j"$(nproc)" --target gguf_reader_fuzz gguf_fuzz_seeds
dir="$build/tests/fuzz"
run_libfuzzer "$dir/gguf_reader_fuzz" "$dir/corpus" "$dir/seeds" "$here/gguf.dict" 1048576 4096 "$dir/artifacts" "$seconds"
