// F16: one IEEE binary16 per block.
#include "weight_type.glsl"

#define QK 1
struct Block {
    float16_t v;
};
layout(binding = WEIGHTS_BINDING, scalar) readonly buffer Weights { Block weights[]; };

vec4 dequant4(uint row, uint i) {
    const uint b = row + i;
    return vec4(weights[b].v, weights[b + 1].v, weights[b + 2].v, weights[b + 3].v);
}
