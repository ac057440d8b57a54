// The seam between the executor and the hardware. A backend runs the nodes
// assigned to it and owns the memory of their outputs; the executor plans
// that memory, orders the nodes, and inserts transfer nodes where a node
// reads a tensor stored by another backend.
//
// Backends now: "cpu" (vectorized kernels on an OpenMP team) and
// "reference" (the ops' plain scalar definitions, one thread), which is also
// what tests compare the CPU against. A GPU backend implements the same
// interface with its own kernels keyed by OpDef.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "graph/tensor.hpp"

namespace tessera {

// Called after each node completes, by one thread, with the node's run time.
using NodeDone = std::function<void(const Tensor& node, double seconds)>;

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string_view name() const = 0;
    // Whether this backend has a kernel for the node's op and types.
    virtual bool supports(const Tensor& node) const = 0;
    // Storage for planned tensors (zeroed, 64-byte aligned, host-addressable).
    virtual std::shared_ptr<void> allocate(size_t bytes);
    // Scratch a node needs while it runs (shared by the backend's threads).
    virtual size_t work_bytes(const Tensor& node) const { return 0; }
    // Runs nodes in order; inputs are ready, outputs have storage. `work`
    // holds the largest work_bytes of the nodes. `done` may be empty.
    virtual void run(std::span<Tensor* const> nodes, void* work, const NodeDone& done) = 0;
};

}  // namespace tessera
