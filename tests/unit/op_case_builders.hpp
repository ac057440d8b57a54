// What the op cases' files share (op_cases.cpp, op_cases_moe.cpp): an
// input by name and weights of a type, and the groups of cases defined in
// files of their own.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.hpp"
#include "op_cases.hpp"

namespace tessera::test {

// Input `name` of shape ne (fill_inputs gives it values).
Tensor* in(Graph& g, const char* name, Shape ne, GgmlType type = GgmlType::F32);
// Random weights of `type`, rows by cols, one set per type and shape, shared
// by the cases that ask for them.
const std::vector<uint8_t>& weights_of(GgmlType type, int64_t cols, int64_t rows);

// The mixture-of-experts ops (op_cases_moe.cpp).
void add_moe_cases(std::vector<OpCase>& v);

}  // namespace tessera::test
