// Runs nodes with their ops' plain scalar reference implementations, on one
// thread: the slow, obviously-correct evaluation that CPU (and later GPU)
// results are compared with.
#pragma once

#include "graph/backend.hpp"

namespace tessera {

class ReferenceBackend final : public Backend {
public:
    std::string_view name() const override { return "reference"; }
    bool supports(const Tensor& node) const override;
    void run(std::span<Tensor* const> nodes, void* work, const NodeDone& done) override;
};

}  // namespace tessera
