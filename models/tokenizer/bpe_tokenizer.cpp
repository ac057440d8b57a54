#include "models/tokenizer/bpe_tokenizer.hpp"

#include <queue>

#include "models/tokenizer/byte_unicode.hpp"
#include "models/tokenizer/unicode.hpp"
#include "support/error.hpp"

namespace tessera::tokenizer {
namespace {

struct Symbol {
    size_t start;
    size_t length;  // 0 once merged into its left neighbour
    int prev;
    int next;
};

struct Pair {
    int rank;
    int left;       // index of the left symbol
    size_t length;  // bytes of both symbols when queued; a mismatch marks a stale entry
};

// Lowest rank first; on equal ranks (the same pair twice) the leftmost.
struct PairOrder {
    bool operator()(const Pair& a, const Pair& b) const {
        return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
    }
};

}  // namespace

BpeTokenizer::BpeTokenizer(Vocab vocab)
    : Tokenizer(std::move(vocab)),
      pre_(pretokenizer_named(vocab_.data().pre)),
      whole_word_tokens_(pre_ == PreTokenizer::llama3) {
    const auto& merges = vocab_.data().merges;
    merge_rank_.reserve(merges.size());
    for (size_t i = 0; i < merges.size(); ++i) {
        const size_t space = merges[i].find(' ', 1);
        if (space == std::string::npos || space + 1 == merges[i].size())
            throw Error("tokenizer.ggml.merges[" + std::to_string(i) + "] \"" + merges[i] +
                        "\" is not of the form \"left right\"");
        merge_rank_.emplace(merges[i], int(i));
    }
}

void BpeTokenizer::encode_plain(std::string_view text, bool, std::vector<TokenId>& out) const {
    for (const std::string_view word : pretokenize(text, pre_)) encode_word(bytes_to_unicode(word), out);
}

void BpeTokenizer::encode_word(const std::string& word, std::vector<TokenId>& out) const {
    if (whole_word_tokens_)
        if (const auto id = vocab_.find(word)) {
            out.push_back(*id);
            return;
        }

    std::vector<Symbol> symbols;
    for (size_t pos = 0; pos < word.size();) {
        const size_t len = decode_utf8(word, pos).length;
        const int index = int(symbols.size());
        symbols.push_back({pos, len, index - 1, index + 1});
        pos += len;
    }
    if (symbols.empty()) return;
    symbols.back().next = -1;

    std::priority_queue<Pair, std::vector<Pair>, PairOrder> queue;
    std::string key;
    const auto try_pair = [&](int left) {
        if (left < 0 || symbols[left].next < 0) return;
        const Symbol& l = symbols[left];
        const Symbol& r = symbols[l.next];
        key.assign(word, l.start, l.length);
        key += ' ';
        key.append(word, r.start, r.length);
        if (const auto it = merge_rank_.find(key); it != merge_rank_.end())
            queue.push({it->second, left, l.length + r.length});
    };
    for (int i = 0; i + 1 < int(symbols.size()); ++i) try_pair(i);

    while (!queue.empty()) {
        const Pair top = queue.top();
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
        append_symbol(std::string_view(word).substr(symbols[i].start, symbols[i].length), out);
}

void BpeTokenizer::append_symbol(std::string_view symbol, std::vector<TokenId>& out) const {
    if (const auto id = vocab_.find(symbol)) {
        out.push_back(*id);
        return;
    }
    // Merges should only produce tokens; for an incomplete vocabulary, one token per byte character.
    for (size_t pos = 0; pos < symbol.size();) {
        const size_t len = decode_utf8(symbol, pos).length;
        const auto id = vocab_.find(symbol.substr(pos, len));
        if (id) out.push_back(*id);
        else if (vocab_.data().unk_id != kNoToken) out.push_back(vocab_.data().unk_id);
        else throw Error("cannot encode \"" + std::string(symbol) + "\": the vocabulary has no token for its bytes");
        pos += len;
    }
}

std::string BpeTokenizer::text_piece(TokenId id) const {
    const std::string& text = vocab_.text(id);
    std::string out;
    for (size_t pos = 0; pos < text.size();) {
        const Utf8Char c = decode_utf8(text, pos);
        if (const auto byte = unicode_to_byte(c.codepoint)) out += char(*byte);
        else out.append(text, pos, c.length);  // not a byte character: kept as written
        pos += c.length;
    }
    return out;
}

}  // namespace tessera::tokenizer
