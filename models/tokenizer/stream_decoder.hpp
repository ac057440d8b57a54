// Decoding tokens one at a time, e.g. while generating: push() returns only
// whole UTF-8 characters, holding back the first bytes of a character whose
// remaining bytes (byte tokens) are still to come. The concatenated output
// of push()es and finish() equals Tokenizer::decode of the same tokens.
#pragma once

#include <string>

#include "models/tokenizer/tokenizer.hpp"

namespace tessera::tokenizer {

class StreamDecoder {
public:
    explicit StreamDecoder(const Tokenizer& tokenizer, bool render_special = false);

    // The text that `id` completes (may be empty).
    std::string push(TokenId id);
    // The bytes still held back (an incomplete UTF-8 sequence at the end of
    // the tokens); the decoder starts over afterwards.
    std::string finish();

private:
    const Tokenizer& tokenizer_;
    bool render_special_;
    bool at_start_;
    std::string pending_;
};

}  // namespace tessera::tokenizer
