// TQ1_0: ternary blocks of 256 values, a trit t in 0..2 per value and an
// fp16 scale d; value = (t - 1) * d. Trits are base-3 digits, five per byte
// of qs and four per byte of qh, stored as the fraction n / 243 of the
// byte's base-3 number n, so digit k is ((byte * 3^k) mod 256) * 3 / 256.
// Values come in runs of consecutive bytes with one digit: the first 160
// are digits 0..4 of qs[0..31], the next 80 digits 0..4 of qs[32..47], the
// last 16 digits 0..3 of qh[0..3].
#include "weight_type.glsl"

#define QK 256
struct Block {
    uint8_t qs[48];
    uint8_t qh[4];
    float16_t d;
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

// Byte k of the trit bytes: qs[0..47], then qh[0..3].
uint tq1_byte(uint b, uint k) { return k < 48 ? uint(weights[b].qs[k]) : uint(weights[b].qh[k - 48]); }

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, v = i % QK;
    uint first, digit;  // of the run holding values v..v+3 (runs are multiples of 4 long)
    if (v < 160) {
        first = v % 32;
        digit = v / 32;
    } else if (v < 240) {
        first = 32 + (v - 160) % 16;
        digit = (v - 160) / 16;
    } else {
        first = 48 + (v - 240) % 4;
        digit = (v - 240) / 4;
    }
    const uint pow3 = digit == 0 ? 1u : digit == 1 ? 3u : digit == 2 ? 9u : digit == 3 ? 27u : 81u;
    vec4 t;
    for (uint j = 0; j < 4; ++j) t[j] = float((((tq1_byte(b, first + j) * pow3) & 0xFFu) * 3u) >> 8);
    return (t - 1.0) * float(weights[b].d);
}
