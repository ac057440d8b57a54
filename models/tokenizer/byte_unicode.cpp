#include "models/tokenizer/byte_unicode.hpp"

#include <array>

#include "models/tokenizer/unicode.hpp"

namespace tessera::tokenizer {
namespace {

bool maps_to_itself(int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); }

struct Tables {
    std::array<std::string, 256> to_unicode;
    std::array<int16_t, 0x144> to_byte;  // code points below U+0144, -1 where unmapped

    Tables() {
        to_byte.fill(-1);
        uint32_t next = 0x100;
        for (int b = 0; b < 256; ++b) {
            const uint32_t cp = maps_to_itself(b) ? uint32_t(b) : next++;
            to_unicode[b] = encode_utf8(cp);
            to_byte[cp] = int16_t(b);
        }
    }
};

const Tables& tables() {
    static const Tables t;
    return t;
}

}  // namespace

const std::string& byte_to_unicode(uint8_t byte) { return tables().to_unicode[byte]; }

std::optional<uint8_t> unicode_to_byte(uint32_t codepoint) {
    if (codepoint >= tables().to_byte.size() || tables().to_byte[codepoint] < 0) return std::nullopt;
    return uint8_t(tables().to_byte[codepoint]);
}

std::string bytes_to_unicode(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char c : bytes) out += byte_to_unicode(uint8_t(c));
    return out;
}

}  // namespace tessera::tokenizer
