// rope(x, positions, params): rotary position embedding of x [head_dim,
// n_head, n_tokens] with the I32 position of each token. Pairs of dimensions
// (adjacent for RopeMode::Normal, as in Llama GGUFs; i and i + n_rot/2 for
// Neox) are rotated by pos * freq_scale * freq_base^(-2i/n_rot).
#pragma once

#include "graph/tensor.hpp"
#include "kernels/cpu/rope.hpp"

namespace tessera {

using cpu::RopeMode;
using cpu::RopeParams;

Tensor* rope(Tensor* x, Tensor* positions, const RopeParams& params);

}  // namespace tessera
