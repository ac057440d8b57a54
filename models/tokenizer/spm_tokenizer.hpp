// SentencePiece-style BPE (tokenizer.ggml.model = "llama"): spaces become
// U+2581, a space prefix starts each segment (tokenizer.ggml.add_space_prefix),
// adjacent symbols are merged highest-score pair first, and characters the
// vocabulary lacks fall back to <0xNN> byte tokens.
#pragma once

#include <array>

#include "models/tokenizer/tokenizer.hpp"

namespace tessera::tokenizer {

class SpmTokenizer final : public Tokenizer {
public:
    explicit SpmTokenizer(Vocab vocab);

protected:
    void encode_plain(std::string_view text, bool starts_segment, std::vector<TokenId>& out) const override;
    std::string text_piece(TokenId id) const override;

private:
    // The id of a token that merging may produce; nullopt for other texts.
    std::optional<TokenId> mergeable(std::string_view text) const;
    void append_symbol(std::string_view symbol, std::vector<TokenId>& out) const;

    std::array<TokenId, 256> byte_ids_;  // <0xNN> tokens, kNoToken where absent
};

}  // namespace tessera::tokenizer
