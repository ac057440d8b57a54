#include "models/tokenizer/stream_decoder.hpp"

#include "models/tokenizer/unicode.hpp"

namespace tessera::tokenizer {
namespace {

// Bytes at the end of `s` that start a UTF-8 sequence but do not finish it.
size_t incomplete_tail(const std::string& s) {
    const size_t n = s.size();
    for (size_t back = 1; back <= 3 && back <= n; ++back) {
        const auto b = uint8_t(s[n - back]);
        if ((b & 0xC0) == 0x80) continue;  // a continuation byte: look further back for the lead
        return utf8_sequence_length(b) > back ? back : 0;
    }
    return 0;
}

}  // namespace

StreamDecoder::StreamDecoder(const Tokenizer& tokenizer, bool render_special)
    : tokenizer_(tokenizer), render_special_(render_special), at_start_(tokenizer.strips_leading_space()) {}

std::string StreamDecoder::push(TokenId id) {
    std::string piece = tokenizer_.piece(id, render_special_);
    if (at_start_ && tokenizer_.vocab().type(id) != TokenType::control) {
        if (piece.starts_with(' ')) piece.erase(0, 1);
        at_start_ = false;
    }
    pending_ += piece;
    const size_t keep = incomplete_tail(pending_);
    std::string out = pending_.substr(0, pending_.size() - keep);
    pending_.erase(0, pending_.size() - keep);
    return out;
}

std::string StreamDecoder::finish() {
    std::string out = std::move(pending_);
    pending_.clear();
    at_start_ = tokenizer_.strips_leading_space();
    return out;
}

}  // namespace tessera::tokenizer
