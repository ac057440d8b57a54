#include "models/tokenizer/special_tokens.hpp"

#include <algorithm>

namespace tessera::tokenizer {

SpecialTokenMatcher::SpecialTokenMatcher(const Vocab& vocab, std::initializer_list<TokenType> types) {
    for (size_t id = 0; id < vocab.size(); ++id) {
        const std::string& text = vocab.text(TokenId(id));
        if (text.empty() || std::find(types.begin(), types.end(), vocab.type(TokenId(id))) == types.end()) continue;
        by_first_byte_[uint8_t(text[0])].push_back({text, TokenId(id)});
    }
    for (auto& list : by_first_byte_)
        std::stable_sort(list.begin(), list.end(),
                         [](const Candidate& a, const Candidate& b) { return a.text.size() > b.text.size(); });
}

SpecialTokenMatcher::Match SpecialTokenMatcher::find(std::string_view text, size_t from) const {
    for (size_t pos = from; pos < text.size(); ++pos)
        for (const auto& c : by_first_byte_[uint8_t(text[pos])])
            if (text.substr(pos).starts_with(c.text)) return {pos, c.text.size(), c.id};
    return {text.size(), 0, kNoToken};
}

}  // namespace tessera::tokenizer
