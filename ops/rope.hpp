// rope(x, positions, params, freq_factors): rotary position embedding of x
// [head_dim, n_head, n_tokens] with the I32 position of each token. Pairs of
// dimensions (adjacent for RopeMode::Normal, as in Llama GGUFs; i and
// i + n_rot/2 for Neox) are rotated by
// pos * freq_scale * freq_base^(-2i/n_rot) / freq_factors[i]; without
// freq_factors (F32, n_rot/2 values: Llama 3.1's rope_freqs.weight) the
// divisor is 1.
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"
#include "kernels/cpu/rope.hpp"

namespace tessera {

namespace ops {
extern const OpDef kRope;
}

using cpu::RopeMode;
using cpu::RopeParams;

Tensor* rope(Tensor* x, Tensor* positions, const RopeParams& params, Tensor* freq_factors = nullptr);

// The per-pair frequency divisors of a rope node, or nullptr.
inline const Tensor* rope_freq_factors(const Tensor& rope_node) {
    return rope_node.src.size() > 2 ? rope_node.src[2] : nullptr;
}

}  // namespace tessera
