#include "models/tokenizer/bpe_tokenizer.hpp"


#include "models/tokenizer/byte_unicode.hpp"
#include "models/tokenizer/symbol_merge.hpp"
#include "models/tokenizer/unicode.hpp"
#include "support/error.hpp"

namespace tessera::tokenizer {

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

    // Lower merge rank first; a pair is looked up as "left right".
    std::string key;
    const auto rank = [&](size_t start, size_t left_length, size_t right_length) -> std::optional<int> {
        key.assign(word, start, left_length);
        key += ' ';
        key.append(word, start + left_length, right_length);
        const auto it = merge_rank_.find(key);
        if (it == merge_rank_.end()) return std::nullopt;
        return -it->second;
    };
    for (const std::string_view symbol : merge_symbols<int>(word, rank)) append_symbol(symbol, out);
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
