// Runs nodes with their CPU kernels (graph/cpu/kernels/, one per op, found
// by the node's OpDef) on one OpenMP team: every thread runs every node (each
// kernel splits its own work), with a barrier between nodes.
#pragma once

#include "graph/backend.hpp"

namespace tessera {

class CpuBackend final : public Backend {
public:
    // n_threads <= 0: OpenMP's default (OMP_NUM_THREADS or the core count).
    explicit CpuBackend(int n_threads = 0);
    std::string_view name() const override { return "cpu"; }
    bool supports(const Tensor& node) const override;
    size_t work_bytes(const Tensor& node) const override;
    void run(std::span<Tensor* const> nodes, void* work, const NodeDone& done) override;
    int n_threads() const { return n_threads_; }

private:
    int n_threads_;
};

}  // namespace tessera
