// Q8_0: blocks of 32 signed bytes q and an fp16 scale d; value = q * d.
#include "weight_type.glsl"

#define QK 32
struct Block {
    float16_t d;
    int8_t qs[32];
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

vec4 dequant4(uint row, uint i) {
    const uint b = row + i / QK, j = i % QK;
    const vec4 q = vec4(weights[b].qs[j], weights[b].qs[j + 1], weights[b].qs[j + 2], weights[b].qs[j + 3]);
    return q * float(weights[b].d);
}
