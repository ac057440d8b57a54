// The definition of an op, below every backend: its name, how its output
// relates to its inputs' storage, its scalar reference and its cost. Each op
// file in ops/ defines one OpDef (namespace tessera::ops) next to the builder
// function that checks shapes and types. Backends register their kernels for
// an op keyed by its OpDef (graph/kernel_registry.hpp), so an op never has to
// know about them.
#pragma once

#include <string_view>

#include "graph/tensor.hpp"

namespace tessera {

// Work of one run of a node, for the profile's throughput columns.
struct OpCost {
    double flops = 0;
    double bytes = 0;  // bytes read and written
};

struct OpDef {
    std::string_view name;
    // A view computes nothing: it is src[0]'s storage at view_offset.
    bool is_view = false;
    // >= 0: the output is written into src[alias_src]'s storage (copy, set_rows
    // into a cache) instead of storage of its own.
    int alias_src = -1;
    // Plain scalar loops over the tensors' strides: the definition of the op,
    // run by the reference backend and by tests.
    void (*reference)(const Tensor& node) = nullptr;
    OpCost (*cost)(const Tensor& node) = nullptr;
};

}  // namespace tessera
