#!/usr/bin/env bash
# Fills OUT_DIR with GGUF fuzzing seeds: the small conformance files (dequant/
# and tokenizer/ GGUFs and the smallest model), prefixes of them cut at
# several lengths, and the synthetic files of SEED_GEN. The conformance files
# are skipped, with a note, when CONFORMANCE_DIR does not exist.
set -euo pipefail
if [[ $# -ne 3 ]]; then
  echo "usage: $0 CONFORMANCE_DIR OUT_DIR SEED_GEN" >&2
  exit 2
fi
conformance=$1 out=$2 seed_gen=$3

rm -rf "$out"
mkdir -p "$out"
"$seed_gen" "$out"

if [[ ! -d "$conformance" ]]; then
  echo "make_seeds.sh: no conformance data at $conformance; using synthetic seeds only" >&2
  exit 0
fi
shopt -s nullglob
for f in "$conformance"/dequant/*.gguf "$conformance"/tokenizer/*.gguf "$conformance"/models/stories260K-Q4_0.gguf; do
  cp "$f" "$out/"
done
# Prefixes cut at several depths: header, metadata, tensor table, tensor data.
for f in "$conformance"/dequant/{Q4_0,Q6_K,IQ4_XS}.gguf "$conformance"/models/stories260K-Q4_0.gguf \
         "$conformance"/tokenizer/ggml-vocab-llama-spm.gguf; do
  for n in 24 100 280 2000 20000; do
    head -c "$n" "$f" > "$out/$(basename "$f" .gguf)-first$n.gguf"
  done
done
