# Sourced by the run_*fuzz.sh scripts: runs one libFuzzer binary the way CI
# runs them all.
#   run_libfuzzer BINARY CORPUS SEEDS DICT MAX_LEN RSS_MB ARTIFACTS SECONDS
# New inputs go to CORPUS, crash inputs to ARTIFACTS (both created);
# exits non-zero on a crash, leak, UB report or timeout.
run_libfuzzer() {
  local binary=$1 corpus=$2 seeds=$3 dict=$4 max_len=$5 rss_mb=$6 artifacts=$7 seconds=$8
  mkdir -p "$corpus" "$artifacts"
  # ASan/UBSan must stop at the first report so libFuzzer records it as a crash.
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
  exec "$binary" "$corpus" "$seeds" \
    -dict="$dict" \
    -max_total_time="$seconds" \
    -max_len="$max_len" \
    -rss_limit_mb="$rss_mb" \
    -timeout=10 \
    -artifact_prefix="$artifacts/" \
    -print_final_stats=1
}
