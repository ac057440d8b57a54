// moe_weights: cpu::expert_weights_row per token.
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/moe.hpp"
#include "ops/moe_weights.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& w, const CpuContext& ctx) {
    const Tensor& probs = *w.src[0];
    const Tensor& ids = *w.src[1];
    const bool normalize = w.param<MoeWeightsParams>().normalize;
    for_my_rows(w, ctx.team, [&](RowIndex ri) {
        cpu::expert_weights_row(reinterpret_cast<const float*>(row_ptr(probs, ri)),
                                reinterpret_cast<const int32_t*>(row_ptr(ids, ri)), w.ne[0], normalize,
                                kMoeWeightSumFloor, reinterpret_cast<float*>(row_ptr(w, ri)));
    });
}

const CpuKernel kMoeWeights{.op = &ops::kMoeWeights, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kMoeWeights);

}  // namespace

}  // namespace tessera::cpuk
