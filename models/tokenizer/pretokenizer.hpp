// Pre-tokenizers of byte-level BPE vocabularies: the text is split into words
// before merging, as the vocabulary's regular expression defines; merges never
// cross word boundaries. The expressions are matched by hand, since std::regex
// knows no Unicode categories.
//
// gpt-2:     's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// llama-bpe: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//            ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// qwen2:     llama-bpe's with \p{N} (single digits) for \p{N}{1,3}
#pragma once

#include <string_view>
#include <vector>

namespace tessera::tokenizer {

enum class PreTokenizer { gpt2, llama3, qwen2 };

// The pre-tokenizer named by tokenizer.ggml.pre. "" (absent) and "default"
// select gpt-2; an unknown name throws tessera::Error naming it.
PreTokenizer pretokenizer_named(std::string_view pre);

// The words of `text`, in order; together they are exactly `text`.
std::vector<std::string_view> pretokenize(std::string_view text, PreTokenizer kind);

}  // namespace tessera::tokenizer
