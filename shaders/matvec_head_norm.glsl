// HEAD_NORM_ROPE: the matvec's rows are heads of k [head_dim, n_head] that
// a per-head rms_norm (Qwen3's and Gemma 3's k norm), a rope and a store
// into the cache read (graph/vulkan/kernels/head_norm_rope.hpp). The last
// workgroup to finish a head's rows of a token (shaders/matvec_last_group.glsl:
// a counter per head and column group) normalizes them, rotates them as
// head_norm_rope.comp does and stores them into cache row ids[token], F32 or
// F16 (Y_F16), so that the head norm takes no level of its own; the other
// workgroups of the level (q's rows, many more of them) hide the wait.
//
// The push constants the matvec leaves unused (no addend, no rope of rows,
// no scatter) carry the epilogue's; graph/vulkan/kernels/head_norm_rope.cpp
// sets them: the norm's gain at a_first (A's binding), the cache at a_nb1
// (binding 8), a cache row a_nb2 apart and a head y_nb_head apart, at most
// dst_ne1 rows; the norm's eps as the bits of a_nb3; the rope's fields as a
// rotating matvec has them (rot, rope_firsts, freq_scale, log2_rate).
//
// Included by matvec.glsl after matvec_last_group.glsl and rope.glsl,
// before its main()s, which call head_norm_epilogue() at their end from
// every invocation.
layout(constant_id = 16) const bool HEAD_NEOX = false;     // else pairs of neighbouring dims
layout(constant_id = 17) const bool HEAD_FACTORS = false;  // per-pair frequency divisors (rope_freqs)
layout(constant_id = 18) const bool HEAD_GAIN = false;     // the norm's weight row

layout(binding = 8, scalar) writeonly buffer Cache32 { float cache32[]; };
layout(binding = 8, scalar) writeonly buffer Cache16 { float16_t cache16[]; };

uint head_dim() { return p.rot >> 16; }

// Value d of a head whose raw rows start at `raw`, normalized.
float head_normed(uint raw, uint d, float inv_rms) {
    const float v = inv_rms * stored[raw + d];
    return HEAD_GAIN ? v * a[p.a_first + d] : v;
}

void cache_put(uint at, float v) {
    if (Y_F16) cache16[at] = float16_t(v);
    else cache32[at] = v;
}

// Head h of token c: its sum of squares, then each invocation's pairs.
void norm_rope_head(uint h, uint c) {
    const uint hd = head_dim(), raw = y_col(c) + h * hd;
    float sum = 0.0;
    for (uint d = gl_LocalInvocationID.x; d < hd; d += gl_WorkGroupSize.x) sum += stored[raw + d] * stored[raw + d];
    const float inv_rms = inversesqrt(group_sum(sum) / float(hd) + uintBitsToFloat(p.a_nb3));
    const uint row = uint(ids[p.ids_first + c]);
    if (row >= p.dst_ne1) return;  // as set_rows: ids outside the cache write nothing
    const uint dst = p.a_nb1 + row * p.a_nb2 + h * p.y_nb_head;
    const uint n_rot = p.rot & 0xFFFFu;
    const int pos = positions[(p.rope_firsts & 0xFFFFu) + c];
    for (uint k = gl_LocalInvocationID.x; k < (hd + 1) / 2; k += gl_WorkGroupSize.x) {
        const uvec2 d = rope_pair_dims(k, n_rot, HEAD_NEOX);
        if (k < n_rot / 2) {
            const float divisor = HEAD_FACTORS ? factors[(p.rope_firsts >> 16) + k] : 1.0;
            const vec2 turned = rope_pair(head_normed(raw, d.x, inv_rms), head_normed(raw, d.y, inv_rms), pos, k,
                                          p.freq_scale, p.log2_rate, divisor);
            cache_put(dst + d.x, turned.x);
            cache_put(dst + d.y, turned.y);
        } else {
            cache_put(dst + d.x, head_normed(raw, d.x, inv_rms));
            if (d.y < hd) cache_put(dst + d.y, head_normed(raw, d.y, inv_rms));
        }
    }
}

// After the workgroup stored rows row0.. (group_rows of them) of tokens col0..
void head_norm_epilogue(uint row0, uint group_rows, uint col0) {
    if (EPILOGUE != HEAD_NORM_ROPE) return;
    const uint hd = head_dim(), end = min(row0 + group_rows, p.n), heads = p.n / hd;
    for (uint h = row0 / hd; h * hd < end; ++h) {
        const uint first_group = h * hd / group_rows, last_group = ((h + 1) * hd - 1) / group_rows;
        if (!last_to_finish(col_group() * heads + h, last_group - first_group + 1)) continue;
        for (uint c = col0; c < col0 + COLS && c < p.m; ++c) norm_rope_head(h, c);
    }
}
