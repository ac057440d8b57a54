// IQ4_NL: blocks of 32 values, an fp16 scale d and 4-bit indices (nibbles as
// Q4_0) into a fixed non-linear table; value = d * table[index].
// Blocks are 18 bytes, only 2-byte aligned: read as 16-bit halves (d, 8 of
// qs), 4 values' indices from 2 halves instead of 4 bytes.
#include "weight_type.glsl"
#include "half_words.glsl"
#include "iq4_values.glsl"
#include "nibbles32.glsl"

#define QK 32
const uint BLOCK_HALVES = 9, QS_HALF = 1;

// Values i..i+3 of the block whose first half is h.
vec4 four_values(uint h, uint i, float d) { return d * iq4_values(nibbles4(word_at(h + QS_HALF + i % 16 / 2), i)); }

vec4 dequant4(uint row, uint i) {
    const uint h = BLOCK_HALVES * (row + i / QK);
    return four_values(h, i, float(halves_f16[h]));
}
