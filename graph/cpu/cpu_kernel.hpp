// A CPU kernel for one op: how the CPU backend runs a node of it. Each file
// of graph/cpu/kernels/ (named like its op) defines one and registers it
// (graph/kernel_registry.hpp); the work itself is a vectorized kernel of
// kernels/cpu/, which takes pointers, sizes and strides, never a Tensor.
#pragma once

#include <cstddef>

#include "graph/kernel_registry.hpp"
#include "graph/tensor.hpp"
#include "kernels/cpu/thread_team.hpp"

namespace tessera {

struct CpuContext {
    cpu::ThreadTeam team;
    void* work = nullptr;  // work_bytes(node, team.nth) bytes shared by the team
};

struct CpuKernel {
    const OpDef* op = nullptr;
    // Called by every thread of the team; splits the node's work itself
    // (ThreadTeam::split).
    void (*run)(const Tensor& node, const CpuContext& ctx) = nullptr;
    // Scratch the kernel needs (null: none).
    size_t (*work_bytes)(const Tensor& node, int n_threads) = nullptr;
};

}  // namespace tessera
