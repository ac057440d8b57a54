// scale(x, s): y = s * x for an F32 tensor.
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kScale;
}

struct ScaleParams {  // scale's node parameters
    float s;
};

Tensor* scale(Tensor* x, float s);

}  // namespace tessera
