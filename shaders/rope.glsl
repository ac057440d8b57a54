// The rotation of one pair of dims (ops/rope.hpp), shared by rope.comp and
// the matvec that applies rope to its rows (shaders/quant/matvec.glsl): pair
// k turns by pos * freq_scale * freq_base^(-2k/n_rot) / divisor, with
// log2_rate = -2 log2(freq_base) / n_rot and divisor the pair's frequency
// factor (rope_freqs), 1.0 without. Returns the pair (x0, x1) rotated.
vec2 rope_pair(float x0, float x1, int pos, uint k, float freq_scale, float log2_rate, float divisor) {
    const float theta = float(pos) * freq_scale * exp2(float(k) * log2_rate) / divisor;
    const float c = cos(theta), s = sin(theta);
    return vec2(x0 * c - x1 * s, x0 * s + x1 * c);
}

// The dims pair k of a head covers, n_rot of them rotated: a rotated pair's
// (k < n_rot / 2; NEOX: k and k + n_rot / 2, half a head apart; else 2k
// and 2k + 1), or past them the two dims copied unrotated (n_rot + 2 (k -
// n_rot / 2) and the next). Shared by the kernels that norm and rotate
// whole heads (head_norm_rope.comp, matvec_head_norm.glsl,
// attention_decode.glsl).
uvec2 rope_pair_dims(uint k, uint n_rot, bool neox) {
    const uint half_rot = n_rot / 2;
    if (k >= half_rot) return uvec2(n_rot + 2 * (k - half_rot), n_rot + 2 * (k - half_rot) + 1);
    return neox ? uvec2(k, k + half_rot) : uvec2(2 * k, 2 * k + 1);
}
