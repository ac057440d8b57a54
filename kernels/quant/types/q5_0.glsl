// Q5_0: blocks of 32 values, an fp16 scale d and 5-bit q: the low 4 bits as
// Q4_0's nibbles, bit 4 of value j in bit j of qh (little-endian 32 bits);
// value = (q - 16) * d.
// Blocks are 22 bytes, only 2-byte aligned: read as 16-bit halves (d, 2 of
// qh, 8 of qs), 4 values' q from 3 halves instead of 5 bytes.
#include "weight_type.glsl"
#include "half_words.glsl"
#include "byte_floats.glsl"
#include "nibbles32.glsl"

#define QK 32
const uint BLOCK_HALVES = 11, QH_HALF = 1, QS_HALF = 3;

// Values i..i+3 of the block whose first half is h, given the 16 bits of qh
// that hold theirs.
vec4 four_values(uint h, uint i, uint qh, float d) {
    const uint qs = word_at(h + QS_HALF + i % 16 / 2);
    return byte_floats(nibbles4(qs, i) | fifth_bits4(qh >> (i % 16)), 16.0) * d;
}

vec4 dequant4(uint row, uint i) {
    const uint h = BLOCK_HALVES * (row + i / QK);
    return four_values(h, i, halves[h + QH_HALF + i % 32 / 16], float(halves_f16[h]));
}
