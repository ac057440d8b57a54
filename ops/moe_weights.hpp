// moe_weights(probs, ids, normalize): the weight of each chosen expert,
// w[j, t] = probs[ids[j, t], t]; with normalize divided by the sum over j
// (at least 2^-14, as llama.cpp clamps it) so that each token's weights sum
// to one. probs F32 [n_expert, n], ids I32 [k, n] (topk's), w F32 [k, n].
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kMoeWeights;
}

struct MoeWeightsParams {  // moe_weights' node parameters
    bool normalize;
};

Tensor* moe_weights(Tensor* probs, Tensor* ids, bool normalize);

// The smallest sum normalize divides by: F16's smallest normal number.
inline constexpr float kMoeWeightSumFloor = 6.103515625e-5f;

}  // namespace tessera
