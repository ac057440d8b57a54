// topk(x, k): the indices of the k largest values of each row of an F32
// tensor [n, rows...], largest first (equal values: the lower index first);
// I32 [k, rows...]. A mixture-of-experts router's choice of experts.
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kTopk;
}

struct TopkParams {  // topk's node parameters
    int64_t k;
};

Tensor* topk(Tensor* x, int64_t k);

}  // namespace tessera
