#include "byte_floats.glsl"

// The 6-bit scale and min of sub-block j (of 8) that Q4_K and Q5_K pack in 12
// bytes: for j < 4 the low 6 bits of bytes j (scale) and j + 4 (min); for
// j >= 4 the nibbles of byte j + 4 (scale low, min high) topped with the
// high 2 bits of bytes j - 4 (scale) and j (min). Here from the 12 bytes as
// 3 little-endian words: bytes j % 4 of each are bytes j % 4, j % 4 + 4 and
// j % 4 + 8.
uvec2 scale_min_words(uvec3 s, uint j) {
    const uvec3 b = s >> (8 * (j % 4));
    const uint lo = b.x, hi = b.y, top = b.z;
    if (j < 4) return uvec2(lo, hi) & 63u;
    return uvec2((top & 0xFu) | (lo >> 6 & 3u) << 4, (top >> 4 & 0xFu) | (hi >> 6 & 3u) << 4);
}

// Scale and min of sub-blocks 2g and 2g + 1 (g < 4) from the 12 bytes as 3
// words, as (scale 2g, scale 2g + 1, min 2g, min 2g + 1): the 4 scales and 4
// mins of the half that holds them unpacked a word at a time, no branches.
uvec4 scale_min_pair(uvec3 s, uint g) {
    const bool high = g >= 2;
    const uint scales = high ? (s.z & 0x0F0F0F0Fu) | (s.x >> 2 & 0x30303030u) : s.x & 0x3F3F3F3Fu;
    const uint mins = high ? (s.z >> 4 & 0x0F0F0F0Fu) | (s.y >> 2 & 0x30303030u) : s.y & 0x3F3F3F3Fu;
    const uint shift = 16 * (g % 2);
    return uvec4(scales >> shift, scales >> (shift + 8), mins >> shift, mins >> (shift + 8)) & 0xFFu;
}

// The same from Q4_K's and Q5_K's block head, their first 16 bytes as one
// word (d and dmin, then the 12 bytes of scales), times d and dmin: sub-block
// j's (d * scale, dmin * min), and sub-blocks 2g and 2g + 1's (d * scale 2g,
// d * scale 2g + 1, dmin * min 2g, dmin * min 2g + 1).
vec2 head_scale_min(uvec4 head, uint j) { return unpackHalf2x16(head.x) * vec2(scale_min_words(head.yzw, j)); }
vec4 head_scale_min_pair(uvec4 head, uint g) {
    const vec2 dm = unpackHalf2x16(head.x);
    const uvec4 sm = scale_min_pair(head.yzw, g);
    return vec4(dm.x * small_floats(sm.xy), dm.y * small_floats(sm.zw));
}
