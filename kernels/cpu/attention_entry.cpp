// Dispatching entry of the attention kernel. Compiled without arch flags: in a
// portable build this runs before an arch is picked.
#include "kernels/cpu/attention.hpp"
#include "kernels/cpu/attention_kernel.hpp"
#include "kernels/simd/dispatch.hpp"

namespace tessera::cpu {

size_t attention_work_bytes(const AttentionArgs& a, int n_threads) {
    validate_attention_shape(a);
    return plan_attention(a, n_threads).work_bytes(n_threads);
}

void attention(const AttentionArgs& a, void* work, const ThreadTeam& team) {
    validate_attention_args(a);
    const AttentionPlan plan = plan_attention(a, team.nth);
    static auto kernel = simd::dispatch<simd::CpuArchs>(AttentionKernel{});
    kernel(a, plan, work, team);
}

}  // namespace tessera::cpu
