// Blocks that are only 2-byte aligned (Q5_0, Q3_K, IQ4_NL) read as 16-bit
// halves: halves[h] raw, halves_f16[h] as an fp16 value, and 4 bytes from
// two halves with word_at. Included after weight_type.glsl.
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights16 { uint16_t halves[]; };
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer WeightsF16 { float16_t halves_f16[]; };

// The 4 bytes at half h as a little-endian word.
uint word_at(uint h) { return pack32(u16vec2(halves[h], halves[h + 1])); }
