#include "models/tokenizer/unicode.hpp"

#include <algorithm>
#include <span>

#include "models/tokenizer/unicode_ranges.hpp"

namespace tessera::tokenizer {
namespace {

bool in_ranges(std::span<const CodepointRange> ranges, uint32_t cp) {
    const auto it = std::upper_bound(ranges.begin(), ranges.end(), cp,
                                     [](uint32_t c, const CodepointRange& r) { return c < r.first; });
    return it != ranges.begin() && cp <= std::prev(it)->last;
}

bool is_continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

}  // namespace

size_t utf8_sequence_length(uint8_t lead) {
    if (lead < 0x80) return 1;
    if ((lead & 0xE0) == 0xC0) return 2;
    if ((lead & 0xF0) == 0xE0) return 3;
    if ((lead & 0xF8) == 0xF0) return 4;
    return 1;
}

Utf8Char decode_utf8(std::string_view text, size_t pos) {
    const auto lead = uint8_t(text[pos]);
    const size_t len = utf8_sequence_length(lead);
    if (len == 1) return {lead < 0x80 ? lead : kInvalidCodepoint, 1};
    if (pos + len > text.size()) return {kInvalidCodepoint, 1};
    uint32_t cp = lead & (0x7F >> len);
    for (size_t i = 1; i < len; ++i) {
        const auto b = uint8_t(text[pos + i]);
        if (!is_continuation(b)) return {kInvalidCodepoint, 1};
        cp = (cp << 6) | (b & 0x3F);
    }
    // Overlong encodings, surrogates and values past U+10FFFF are not well-formed.
    static constexpr uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinForLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {kInvalidCodepoint, 1};
    return {cp, len};
}

std::string encode_utf8(uint32_t cp) {
    std::string out;
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
    return out;
}

bool is_letter(uint32_t cp) { return in_ranges(letter_ranges(), cp); }
bool is_number(uint32_t cp) { return in_ranges(number_ranges(), cp); }

bool is_whitespace(uint32_t cp) {
    // The White_Space property of PropList.txt.
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
           cp == 0x3000;
}

}  // namespace tessera::tokenizer
