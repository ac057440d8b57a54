#include "tools/terminal_text.hpp"

#include <cstdint>

namespace tessera::cli {
namespace {

// The length of the well-formed UTF-8 character at text[at] whose code point
// is U+00A0 or above; 0 when there is none.
size_t printable_utf8_length(std::string_view text, size_t at) {
    const auto byte = [&](size_t i) { return uint8_t(text[i]); };
    const uint8_t lead = byte(at);
    size_t length = 0;
    uint32_t cp = 0, min = 0;
    if (lead >= 0xC2 && lead <= 0xDF) length = 2, cp = lead & 0x1F, min = 0xA0;
    else if (lead >= 0xE0 && lead <= 0xEF) length = 3, cp = lead & 0x0F, min = 0x800;
    else if (lead >= 0xF0 && lead <= 0xF4) length = 4, cp = lead & 0x07, min = 0x10000;
    else return 0;
    if (at + length > text.size()) return 0;
    for (size_t i = 1; i < length; ++i) {
        if ((byte(at + i) & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (byte(at + i) & 0x3F);
    }
    const bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
    return cp >= min && cp <= 0x10FFFF && !surrogate ? length : 0;
}

}  // namespace

std::string terminal_safe(std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const auto c = uint8_t(text[i]);
        if (c >= 0x20 && c < 0x7F) {
            out += c == '\\' ? "\\\\" : std::string(1, char(c));
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (const size_t n = c >= 0x80 ? printable_utf8_length(text, i) : 0; n > 0) {
            out.append(text.substr(i, n));
            i += n;
            continue;
        } else {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
        ++i;
    }
    return out;
}

}  // namespace tessera::cli
