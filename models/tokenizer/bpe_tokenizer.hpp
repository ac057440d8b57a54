// Byte-level BPE (tokenizer.ggml.model = "gpt2"): the text is split into words
// by the pre-tokenizer of tokenizer.ggml.pre, each word's bytes are spelled
// with GPT-2's byte characters, and adjacent symbols are merged lowest merge
// rank first (tokenizer.ggml.merges, ties leftmost).
#pragma once

#include <string>
#include <unordered_map>

#include "models/tokenizer/pretokenizer.hpp"
#include "models/tokenizer/tokenizer.hpp"

namespace tessera::tokenizer {

class BpeTokenizer final : public Tokenizer {
public:
    explicit BpeTokenizer(Vocab vocab);

protected:
    void encode_plain(std::string_view text, bool starts_segment, std::vector<TokenId>& out) const override;
    std::string text_piece(TokenId id) const override;

private:
    void encode_word(const std::string& word, std::vector<TokenId>& out) const;
    void append_symbol(std::string_view symbol, std::vector<TokenId>& out) const;

    PreTokenizer pre_;
    // Llama-3 vocabularies take a word that is itself a token as is, without merging.
    bool whole_word_tokens_;
    std::unordered_map<std::string, int> merge_rank_;  // key "left right", as in the merges list
};

}  // namespace tessera::tokenizer
