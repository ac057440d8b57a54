// UTF-8 decoding and the character classes the tokenizers need.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::tokenizer {

// Bytes in the UTF-8 sequence led by `lead` (1 for bytes that cannot lead one).
size_t utf8_sequence_length(uint8_t lead);

// One decoded character: its code point and how many bytes of the text it spans.
// A byte that does not start a well-formed sequence decodes as kInvalidCodepoint
// of length 1, so every byte of any input belongs to exactly one character.
struct Utf8Char {
    uint32_t codepoint;
    size_t length;
};
inline constexpr uint32_t kInvalidCodepoint = 0xFFFFFFFF;
Utf8Char decode_utf8(std::string_view text, size_t pos);

std::string encode_utf8(uint32_t codepoint);

// Unicode general category L / N, and the White_Space property (what \s matches).
bool is_letter(uint32_t cp);
bool is_number(uint32_t cp);
bool is_whitespace(uint32_t cp);

}  // namespace tessera::tokenizer
