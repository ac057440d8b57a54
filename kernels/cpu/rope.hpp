// Rotary position embedding (RoPE) of one token's attention heads.
#pragma once

#include <cstdint>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

enum class RopeMode {
    Normal,  // rotates pairs (2i, 2i+1): Llama GGUF
    Neox,    // rotates pairs (i, i + n_rot/2): Qwen2, Phi-3
};

struct RopeParams {
    int n_rot;         // leading dims of each head that rotate (even, <= head_dim); the rest pass through
    float freq_base;   // theta_i = pos * freq_scale * freq_base^(-2i/n_rot) (/ freq_factors[i]: rope())
    float freq_scale;  // linear position scaling
    RopeMode mode;
    // Multiplies the rotated dims (cos and sin), as long-context rope
    // variants ask (Phi-3's rope.scaling.attn_factor); the others pass through.
    float attn_factor = 1.0f;
};

// Both kernels work on per-dim tables: dim d of a head turns into
// x[d] * cos[d] + x[partner(d)] * sin[d], where partner(d) is the other dim
// of d's pair and sin[d] carries the sign of d's place in the pair.

// cos[d], sin[d] of pos * rate[d] for d < n, evaluated in double, rounded to float.
struct RopeAngles {
    // Defined in rope.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, double pos, const double* rate, float* cos, float* sin, int64_t n) const;
    void operator()(simd::Scalar, double pos, const double* rate, float* cos, float* sin, int64_t n) const;
};

// Rotates dims [0, n_rot) of n_heads heads of head_dim floats (head h at x + h * head_dim)
// with the tables above; copies the other dims when y != x.
struct RopeRotate {
    template <class Arch>
    void operator()(Arch, const float* x, float* y, int64_t head_dim, int64_t n_heads, int64_t n_rot, RopeMode mode,
                    const float* cos, const float* sin) const;
    void operator()(simd::Scalar, const float* x, float* y, int64_t head_dim, int64_t n_heads, int64_t n_rot,
                    RopeMode mode, const float* cos, const float* sin) const;
};

// RoPE at position pos of one token's n_heads contiguous heads; y may be x.
// freq_factors, where given (n_rot/2 floats: Llama 3.1's rope_freqs), divide
// pair i's angle by freq_factors[i]. The angles are computed once per call
// and shared by all heads (rope_entry.cpp).
// Throws an Error when n_rot is odd, negative or larger than head_dim.
void rope(const float* x, float* y, int64_t head_dim, int64_t n_heads, int32_t pos, const RopeParams& p,
          const float* freq_factors = nullptr);

}  // namespace tessera::cpu
