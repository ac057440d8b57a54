#include "graph/reference_backend.hpp"

#include <chrono>

#include "graph/op_def.hpp"

namespace tessera {

bool ReferenceBackend::supports(const Tensor& node) const { return node.op->reference != nullptr; }

void ReferenceBackend::run(std::span<Tensor* const> nodes, void*, const NodeDone& done) {
    for (Tensor* node : nodes) {
        const auto start = std::chrono::steady_clock::now();
        node->op->reference(*node);
        if (done) done(*node, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
}

}  // namespace tessera
