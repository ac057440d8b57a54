#include "models/tokenizer/pretokenizer.hpp"

#include <string>

#include "models/tokenizer/unicode.hpp"
#include "support/error.hpp"

namespace tessera::tokenizer {
namespace {

// The text as characters, with the matching primitives the two expressions share.
// Positions are character indices; size() is the end of the text.
class Chars {
public:
    explicit Chars(std::string_view text) : text_(text) {
        for (size_t pos = 0; pos < text.size();) {
            const Utf8Char c = decode_utf8(text, pos);
            cps_.push_back(c.codepoint);
            offsets_.push_back(pos);
            pos += c.length;
        }
        offsets_.push_back(text.size());
    }

    size_t size() const { return cps_.size(); }
    uint32_t at(size_t i) const { return i < cps_.size() ? cps_[i] : kInvalidCodepoint; }
    bool letter(size_t i) const { return i < size() && is_letter(cps_[i]); }
    bool number(size_t i) const { return i < size() && is_number(cps_[i]); }
    bool space(size_t i) const { return i < size() && is_whitespace(cps_[i]); }
    bool newline(size_t i) const { return at(i) == '\r' || at(i) == '\n'; }
    // [^\s\p{L}\p{N}]
    bool other(size_t i) const { return i < size() && !letter(i) && !number(i) && !space(i); }
    std::string_view slice(size_t from, size_t to) const {
        return text_.substr(offsets_[from], offsets_[to] - offsets_[from]);
    }

    template <class Pred>
    size_t skip(size_t i, Pred pred) const {
        while (i < size() && pred(i)) ++i;
        return i;
    }

    // 's 't 're 've 'm 'll 'd at i: the end of the match, or i.
    size_t contraction(size_t i, bool ignore_case) const {
        if (at(i) != '\'') return i;
        const auto lower = [&](size_t k) {
            const uint32_t c = at(k);
            return ignore_case && c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
        };
        const uint32_t a = lower(i + 1);
        if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
        const uint32_t b = lower(i + 2);
        if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
        return i;
    }

    // \s+(?!\S) then \s+, for a whitespace run starting at i: the whole run
    // when it ends the text or reaches a non-space after more than one
    // character, else all but its last character, which joins the next word.
    size_t trailing_space(size_t i) const {
        const size_t end = skip(i, [&](size_t k) { return space(k); });
        if (end == size() || end - i == 1) return end;
        return end - 1;
    }

private:
    std::string_view text_;
    std::vector<uint32_t> cps_;
    std::vector<size_t> offsets_;  // byte offset of each character, plus the text's end
};

// The end of the GPT-2 word starting at i.
size_t gpt2_word(const Chars& c, size_t i) {
    if (const size_t end = c.contraction(i, false); end != i) return end;
    const size_t j = c.at(i) == ' ' ? i + 1 : i;  // the optional leading space of the next three
    if (c.letter(j)) return c.skip(j, [&](size_t k) { return c.letter(k); });
    if (c.number(j)) return c.skip(j, [&](size_t k) { return c.number(k); });
    if (c.other(j)) return c.skip(j, [&](size_t k) { return c.other(k); });
    return c.trailing_space(i);
}

// The end of the Llama-3 word starting at i; Qwen2's words differ only in
// taking one digit at a time (max_digits 1 instead of 3).
size_t llama3_word(const Chars& c, size_t i, size_t max_digits) {
    if (const size_t end = c.contraction(i, true); end != i) return end;
    // [^\r\n\p{L}\p{N}]?\p{L}+
    const size_t j = (!c.newline(i) && !c.letter(i) && !c.number(i) && c.letter(i + 1)) ? i + 1 : i;
    if (c.letter(j)) return c.skip(j, [&](size_t k) { return c.letter(k); });
    // \p{N}{1,max_digits}
    if (c.number(i)) {
        size_t end = i;
        while (end < i + max_digits && c.number(end)) ++end;
        return end;
    }
    // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
    const size_t k = c.at(i) == ' ' ? i + 1 : i;
    if (c.other(k)) {
        const size_t end = c.skip(k, [&](size_t m) { return c.other(m); });
        return c.skip(end, [&](size_t m) { return c.newline(m); });
    }
    // \s*[\r\n]+ : up to the last line break of the whitespace run.
    const size_t run_end = c.skip(i, [&](size_t m) { return c.space(m); });
    for (size_t m = run_end; m > i; --m)
        if (c.newline(m - 1)) return m;
    return c.trailing_space(i);
}

}  // namespace

PreTokenizer pretokenizer_named(std::string_view pre) {
    if (pre.empty() || pre == "default" || pre == "gpt-2") return PreTokenizer::gpt2;
    if (pre == "llama-bpe" || pre == "llama3" || pre == "llama-v3") return PreTokenizer::llama3;
    if (pre == "qwen2" || pre == "deepseek-r1-qwen") return PreTokenizer::qwen2;
    throw Error("tokenizer.ggml.pre \"" + std::string(pre) +
                "\" is not a supported pre-tokenizer (supported: \"gpt-2\", \"llama-bpe\", \"qwen2\")");
}

std::vector<std::string_view> pretokenize(std::string_view text, PreTokenizer kind) {
    const Chars chars(text);
    std::vector<std::string_view> words;
    for (size_t i = 0; i < chars.size();) {
        const size_t end = kind == PreTokenizer::gpt2     ? gpt2_word(chars, i)
                           : kind == PreTokenizer::llama3 ? llama3_word(chars, i, 3)
                                                          : llama3_word(chars, i, 1);
        words.push_back(chars.slice(i, end));
        i = end;
    }
    return words;
}

}  // namespace tessera::tokenizer
