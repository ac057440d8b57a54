#include "models/tokenizer/spm_tokenizer.hpp"

#include <charconv>
#include <cstdio>
#include <queue>

#include "models/tokenizer/unicode.hpp"
#include "support/error.hpp"

namespace tessera::tokenizer {
namespace {

constexpr std::string_view kSpaceMark = "\xE2\x96\x81";  // U+2581, SentencePiece's visible space

// A run of the normalized text, in a doubly linked list of the current segmentation.
struct Symbol {
    size_t start;
    size_t length;  // 0 once merged into its left neighbour
    int prev;
    int next;
};

struct Bigram {
    float score;
    int left;       // index of the left symbol
    size_t length;  // bytes of both symbols when queued; a mismatch marks a stale entry
};

// Highest score first; on equal scores the leftmost pair.
struct BigramOrder {
    bool operator()(const Bigram& a, const Bigram& b) const {
        return a.score < b.score || (a.score == b.score && a.left > b.left);
    }
};

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

    std::vector<Symbol> symbols;
    for (size_t pos = 0; pos < text.size();) {
        const size_t len = decode_utf8(text, pos).length;
        const int index = int(symbols.size());
        symbols.push_back({pos, len, index - 1, index + 1});
        pos += len;
    }
    if (symbols.empty()) return;
    symbols.back().next = -1;

    std::priority_queue<Bigram, std::vector<Bigram>, BigramOrder> queue;
    const auto try_pair = [&](int left) {
        if (left < 0 || symbols[left].next < 0) return;
        const Symbol& l = symbols[left];
        const size_t length = l.length + symbols[l.next].length;
        if (const auto id = mergeable(std::string_view(text).substr(l.start, length)))
            queue.push({vocab_.score(*id), left, length});
    };
    for (int i = 0; i + 1 < int(symbols.size()); ++i) try_pair(i);

    while (!queue.empty()) {
        const Bigram top = queue.top();
        queue.pop();
        Symbol& left = symbols[top.left];
        if (left.length == 0 || left.next < 0) continue;
        Symbol& right = symbols[left.next];
        if (left.length + right.length != top.length) continue;  // a neighbour changed since it was queued
        left.length = top.length;
        right.length = 0;
        left.next = right.next;
        if (left.next >= 0) symbols[left.next].prev = top.left;
        try_pair(left.prev);
        try_pair(top.left);
    }

    for (int i = 0; i >= 0; i = symbols[i].next)
        append_symbol(std::string_view(text).substr(symbols[i].start, symbols[i].length), out);
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
