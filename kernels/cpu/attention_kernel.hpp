// The attention kernel as a functor over the xsimd arch, for simd::dispatch.
// Every thread of the team calls it with the same (validated) arguments and
// plan; it runs the thread's items of the plan.
#pragma once

#include "kernels/cpu/attention.hpp"
#include "kernels/cpu/attention_plan.hpp"
#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

struct AttentionKernel {
    // Flash attention over KV tiles (attention_kernel.cpp), instantiated per arch.
    template <class Arch>
    void operator()(Arch, const AttentionArgs& a, const AttentionPlan& plan, void* work, const ThreadTeam& team) const;
    // Online softmax one query row at a time (attention_scalar.cpp).
    void operator()(simd::Scalar, const AttentionArgs& a, const AttentionPlan& plan, void* work,
                    const ThreadTeam& team) const;
};

}  // namespace tessera::cpu
