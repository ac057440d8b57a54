// The one declaration of an op: its name, how its output relates to its
// inputs' storage, its scalar reference, its CPU kernel and its cost. Each op
// file in ops/ defines one OpDef next to the builder function that checks
// shapes and types; backends other than the CPU (Vulkan) key their kernels
// by the op's name (graph/vulkan/kernels/registry.cpp), so an op never has
// to know about them.
#pragma once

#include <cstddef>
#include <string_view>

#include "graph/tensor.hpp"
#include "kernels/cpu/thread_team.hpp"

namespace tessera {

struct CpuContext {
    cpu::ThreadTeam team;
    void* work = nullptr;  // cpu_work_bytes(node, team.nth) bytes shared by the team
};

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
    // Vectorized kernel, called by every thread of the team.
    void (*eval_cpu)(const Tensor& node, const CpuContext& ctx) = nullptr;
    // Scratch the CPU kernel needs (null: none).
    size_t (*cpu_work_bytes)(const Tensor& node, int n_threads) = nullptr;
    OpCost (*cost)(const Tensor& node) = nullptr;
};

}  // namespace tessera
