#include "models/gguf/printable.hpp"

namespace tessera::gguf {

std::string quoted(std::string_view text) {
    constexpr size_t kMaxShown = 96;
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "'";
    for (size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
            out += char(c);
        } else {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    out += text.size() > kMaxShown ? "'..." : "'";
    return out;
}

std::string shape_string(std::span<const uint64_t> ne) {
    std::string s = "[";
    for (size_t i = 0; i < ne.size(); ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
    return s + "]";
}

}  // namespace tessera::gguf
