// Code point ranges of the Unicode general categories the pre-tokenizers need
// (generated into unicode_ranges.cpp by gen_unicode_ranges.py).
#pragma once

#include <cstdint>
#include <span>

namespace tessera::tokenizer {

struct CodepointRange {
    uint32_t first;
    uint32_t last;  // inclusive
};

std::span<const CodepointRange> letter_ranges();  // categories Lu Ll Lt Lm Lo, sorted
std::span<const CodepointRange> number_ranges();  // categories Nd Nl No, sorted

}  // namespace tessera::tokenizer
