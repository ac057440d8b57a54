// The factor by which a token's k expert weights are normalized
// (ops/moe_weights.hpp's normalize): 1 / max(their sum, sum_floor), summed
// in float from slot 0 up. moe_weights.comp, moe_sum.comp (its inlined
// moe_weights) and matvec_moe.glsl (EXPERT_SUM's slot_scale) share it, so
// that each normalizes the same weights to the same bits.
//
// The includer defines slot j's weight before normalization:
float moe_weight(uint j);

float moe_weight_scale(uint k, float sum_floor) {
    float sum = 0.0;
    for (uint j = 0; j < k; ++j) sum += moe_weight(j);
    return 1.0 / max(sum, sum_floor);
}
