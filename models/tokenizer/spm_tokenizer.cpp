#include "models/tokenizer/spm_tokenizer.hpp"

#include <charconv>
#include <cstdio>

#include "models/tokenizer/symbol_merge.hpp"
#include "models/tokenizer/unicode.hpp"
#include "support/error.hpp"

namespace tessera::tokenizer {
namespace {

constexpr std::string_view kSpaceMark = "\xE2\x96\x81";  // U+2581, SentencePiece's visible space

std::string normalize(std::string_view text, bool add_prefix) {
    std::string out;
    out.reserve(text.size() * 3 + 3);
    if (add_prefix) out += kSpaceMark;
    for (const char c : text) {
        if (c == ' ') out += kSpaceMark;
        else out += c;
    }
    return out;
}

}  // namespace

SpmTokenizer::SpmTokenizer(Vocab vocab) : Tokenizer(std::move(vocab)) {
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        byte_ids_[b] = vocab_.find(name).value_or(kNoToken);
    }
}

std::optional<TokenId> SpmTokenizer::mergeable(std::string_view text) const {
    const auto id = vocab_.find(text);
    if (!id) return std::nullopt;
    // As in SentencePiece, control, unknown and byte pieces are never the result of a merge.
    const TokenType t = vocab_.type(*id);
    if (t == TokenType::control || t == TokenType::unknown || t == TokenType::byte) return std::nullopt;
    return id;
}

void SpmTokenizer::encode_plain(std::string_view raw, bool starts_segment, std::vector<TokenId>& out) const {
    const std::string text = normalize(raw, starts_segment && vocab_.data().add_space_prefix);

    // Higher vocabulary score first.
    const auto score = [&](size_t start, size_t left_length, size_t right_length) -> std::optional<float> {
        const auto id = mergeable(std::string_view(text).substr(start, left_length + right_length));
        if (!id) return std::nullopt;
        return vocab_.score(*id);
    };
    for (const std::string_view symbol : merge_symbols<float>(text, score)) append_symbol(symbol, out);
}

void SpmTokenizer::append_symbol(std::string_view symbol, std::vector<TokenId>& out) const {
    if (const auto id = mergeable(symbol)) {
        out.push_back(*id);
        return;
    }
    // A single character missing from the vocabulary: one byte token per byte,
    // or the unknown token for the character when the vocabulary has no byte tokens.
    bool bytes = true;
    for (const char c : symbol) bytes = bytes && byte_ids_[uint8_t(c)] != kNoToken;
    if (bytes) {
        for (const char c : symbol) out.push_back(byte_ids_[uint8_t(c)]);
    } else if (vocab_.data().unk_id != kNoToken) {
        out.push_back(vocab_.data().unk_id);
    } else {
        throw Error("cannot encode \"" + std::string(symbol) +
                    "\": the vocabulary has neither byte tokens for it nor an unknown token");
    }
}

std::string SpmTokenizer::text_piece(TokenId id) const {
    const std::string& text = vocab_.text(id);
    if (vocab_.type(id) == TokenType::byte && text.size() == 6 && text.starts_with("<0x") && text.ends_with('>')) {
        unsigned value = 0;
        const auto [end, ec] = std::from_chars(text.data() + 3, text.data() + 5, value, 16);
        if (ec == std::errc() && end == text.data() + 5) return std::string(1, char(value));
    }
    std::string out;
    for (size_t pos = 0; pos < text.size();) {
        if (std::string_view(text).substr(pos).starts_with(kSpaceMark)) {
            out += ' ';
            pos += kSpaceMark.size();
        } else {
            out += text[pos++];
        }
    }
    return out;
}

}  // namespace tessera::tokenizer
