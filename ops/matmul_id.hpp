// matmul_id(w, x, ids): products with weight matrices chosen per token, the
// experts of a mixture-of-experts layer. w is [k_in, n_out, n_expert] of any
// quant type the CPU supports (expert e: the matrix w[:, :, e]); ids I32
// [slots, n] names each token's experts; x F32 [k_in, 1 or slots, n];
// y F32 [n_out, slots, n] with y[:, j, t] = w[:, :, ids[j, t]] · x[:, j', t],
// j' = j (x has one row per slot) or 0 (the token's row for every slot).
// `precision`: how the kernels round x, as matmul's.
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"
#include "kernels/quant/activation_precision.hpp"

namespace tessera {

namespace ops {
extern const OpDef kMatmulId;
}

Tensor* matmul_id(Tensor* w, Tensor* x, Tensor* ids, ActivationPrecision precision = ActivationPrecision::Q8);

}  // namespace tessera
