// Generated vocabularies of synthetic models (models/synthetic_model.hpp), as
// the tokenizer.ggml.* keys of a GGUF file. Both tokenize any ASCII text and
// load in tessera and llama.cpp alike.
#pragma once

#include <cstdint>
#include <string_view>

#include "models/gguf/writer.hpp"

namespace tessera::model {

// The special tokens a SentencePiece vocabulary starts with. Llama: <unk> 0,
// <s> 1 (BOS), </s> 2 (EOS). Gemma: <pad> 0, <eos> 1, <bos> 2, <unk> 3, and
// no space prefix (tokenizer.ggml.add_space_prefix false). Phi3: Llama's,
// and as the last tokens the chat control tokens <|endoftext|> (EOS; llama.cpp
// looks it up in any model named Phi-3), <|assistant|>, <|system|>,
// <|end|>, <|user|> (in the real vocabulary at 32000 and on).
enum class SpmSpecials { Llama, Gemma, Phi3 };

// SentencePiece-style ("llama", Llama-2's kind): the special tokens, the 256
// byte tokens, then distinct pieces with decreasing scores. BOS added.
void add_spm_vocabulary(gguf::Writer& w, int64_t n_vocab, SpmSpecials specials = SpmSpecials::Llama);

// GPT-2-style byte-level BPE ("gpt2", Qwen2's kind) with pre-tokenizer
// `pre`: the 256 byte characters, then words made by merges, then the
// control tokens <|endoftext|> (BOS and EOS, not added), <|im_start|>, <|im_end|>.
void add_bpe_vocabulary(gguf::Writer& w, int64_t n_vocab, std::string_view pre);

}  // namespace tessera::model
