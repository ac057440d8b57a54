// What the kernel tests compare with: an op's scalar reference (its
// OpDef::reference, the one definition of the op), run on the reference
// backend over the test's own arrays.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/executor.hpp"
#include "graph/reference_backend.hpp"
#include "graph_test_util.hpp"

namespace tessera::test {

// `build(g)` returns a node of g made from leaves that borrow the test's
// data (Graph::weight, views of it); the node's values, dense F32.
template <class Build>
std::vector<float> reference_values(Build&& build) {
    Graph g;
    Tensor* node = build(g);
    Executor exec(g, {node}, {.backends = {std::make_shared<ReferenceBackend>()}});
    exec.run();
    return values_of(*node);
}

// The reference of `build(inputs...)` over F32 rows (each a 1-D input),
// e.g. reference_of_rows([](Tensor* a, Tensor* b) { return add(a, b); }, a, b).
template <class Build, class... Rows>
std::vector<float> reference_of_rows(Build&& build, const Rows&... rows) {
    return reference_values([&](Graph& g) {
        int n = 0;
        auto leaf = [&](const std::vector<float>& row) {
            return g.weight("in" + std::to_string(n++), GgmlType::F32, {int64_t(row.size()), 1, 1, 1}, row.data());
        };
        return build(leaf(rows)...);
    });
}

}  // namespace tessera::test
