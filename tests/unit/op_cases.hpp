// The op test cases every backend's kernels are checked with against the
// ops' scalar references (op_cpu_test.cpp, op_vulkan_test.cpp): odd sizes,
// broadcasting, strided views, caches, and get_rows/matmul for every weight
// type of the build. Thresholds (NMSE) follow llama.cpp's backend tests:
// 1e-7 for elementwise ops, norms and rope, 1e-6 for softmax and copies,
// 5e-4 for quantized matmul. A case whose kernel may round its operands to
// fp16 on the tensor cores (a prompt's attention) states that bar too.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "graph/backend.hpp"
#include "graph/graph.hpp"

namespace tessera::test {

struct OpCase {
    std::string name;
    std::function<Tensor*(Graph&)> build;  // inputs named in_*, weights borrowed from the case
    double max_nmse;
    // The bar where the device has tensor cores whose kernels round the
    // operands to fp16 (shaders/attention_coopmat.comp); 0: max_nmse.
    double tensor_core_nmse = 0;
};

// How gtest, and so ctest's test list, shows a case: its name, not a dump of its bytes.
inline void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

std::vector<OpCase> op_cases();

// Fills every input of the graph with values derived from its name.
void fill_inputs(Graph& g);

// Runs the case's graph on `backends` (in order of preference) and returns its output.
std::vector<float> evaluate(const OpCase& c, std::vector<std::shared_ptr<Backend>> backends);

}  // namespace tessera::test
