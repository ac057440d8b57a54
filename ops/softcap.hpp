// softcap(x, cap): y = cap * tanh(x / cap) for an F32 tensor and cap > 0
// (Gemma 2's final-logit soft-capping).
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kSoftcap;
}

struct SoftcapParams {  // softcap's node parameters
    float cap;
};

Tensor* softcap(Tensor* x, float cap);

}  // namespace tessera
