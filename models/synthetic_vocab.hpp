// Generated vocabularies of synthetic models (models/synthetic_model.hpp), as
// the tokenizer.ggml.* keys of a GGUF file. Both tokenize any ASCII text and
// load in tessera and llama.cpp alike.
#pragma once

#include <cstdint>
#include <string_view>

#include "models/gguf/writer.hpp"

namespace tessera::model {

// SentencePiece-style ("llama", Llama-2's kind): <unk>, <s>, </s>, the 256
// byte tokens, then distinct pieces with decreasing scores. BOS added.
void add_spm_vocabulary(gguf::Writer& w, int64_t n_vocab);

// GPT-2-style byte-level BPE ("gpt2", Qwen2's kind) with pre-tokenizer
// `pre`: the 256 byte characters, then words made by merges, then the
// control tokens <|endoftext|> (BOS and EOS, not added), <|im_start|>, <|im_end|>.
void add_bpe_vocabulary(gguf::Writer& w, int64_t n_vocab, std::string_view pre);

}  // namespace tessera::model
