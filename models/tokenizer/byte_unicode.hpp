// GPT-2's reversible byte <-> character mapping: byte-level BPE vocabularies
// spell every byte as a printable character (bytes that are printable Latin-1
// map to themselves, the others to U+0100 onwards in byte order, so a space is "Ġ").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::tokenizer {

// The UTF-8 text of the character that stands for `byte`.
const std::string& byte_to_unicode(uint8_t byte);
// The byte a character stands for; nullopt for characters outside the mapping.
std::optional<uint8_t> unicode_to_byte(uint32_t codepoint);

// Every byte of `bytes` spelled as its character.
std::string bytes_to_unicode(std::string_view bytes);

}  // namespace tessera::tokenizer
