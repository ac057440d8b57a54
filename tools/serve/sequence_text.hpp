// The text of one generated sequence, token by token: whole UTF-8 characters
// (tokenizer::StreamDecoder), with the request's stop strings cut out. Text
// that could be the start of a stop string is held back until the next
// tokens show that it is not; the stop string itself and what follows it are
// never sent.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/tokenizer/stream_decoder.hpp"

namespace tessera::serve {

class SequenceText {
public:
    // `context`: the prompt, which primes the decoder so that the first
    // piece keeps (or drops) its leading space as in the whole text.
    SequenceText(const tokenizer::Tokenizer& tokenizer, std::span<const int32_t> context,
                 std::vector<std::string> stops);

    // The text that may be sent now that `id` was generated (may be empty).
    std::string push(int32_t id);
    // Whether a stop string was found: the sequence is over.
    bool stopped() const { return stopped_; }
    // What was held back, at the end of the sequence (nothing after a stop).
    std::string finish();

private:
    // The text of pending_ that may go out, leaving what could start a stop string.
    std::string release();

    tokenizer::StreamDecoder decoder_;
    std::vector<std::string> stops_;
    std::string pending_;  // decoded, not sent yet
    bool stopped_ = false;
};

}  // namespace tessera::serve
