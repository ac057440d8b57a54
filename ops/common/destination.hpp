// What copy and set_rows share: the rules for the tensor they write into,
// and the reference conversion of an F32 row into it.
#pragma once

#include <string_view>

#include "graph/tensor.hpp"

namespace tessera {

// dst is of a type of the build, has contiguous rows and is no weight.
void check_destination(std::string_view op, const Tensor& dst);
// Converts one F32 row into a row of dst's type with the registry's quantizer.
void store_reference(const Tensor& dst, const float* src, char* out);

}  // namespace tessera
