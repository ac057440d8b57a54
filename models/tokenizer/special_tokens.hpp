// Finding special tokens written in text: leftmost match first, the longest
// token text when several match at the same position.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

#include "models/tokenizer/vocab.hpp"

namespace tessera::tokenizer {

class SpecialTokenMatcher {
public:
    SpecialTokenMatcher() = default;
    // The tokens of `vocab` whose type is one of `types`.
    SpecialTokenMatcher(const Vocab& vocab, std::initializer_list<TokenType> types);

    struct Match {
        size_t pos = 0;  // byte offset in the text; text.size() when there is none
        size_t length = 0;
        TokenId id = kNoToken;
    };
    Match find(std::string_view text, size_t from) const;

private:
    struct Candidate {
        std::string_view text;  // points into the Vocab, which outlives the matcher
        TokenId id;
    };
    std::array<std::vector<Candidate>, 256> by_first_byte_;  // each sorted longest first
};

}  // namespace tessera::tokenizer
