// moe_sum: cpu::weighted_sum_row per token.
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/moe.hpp"
#include "ops/moe_sum.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& out, const CpuContext& ctx) {
    const Tensor& y = *out.src[0];
    const Tensor& w = *out.src[1];
    for_my_rows(out, ctx.team, [&](RowIndex ri) {
        cpu::weighted_sum_row(reinterpret_cast<const float*>(y.row(0, ri.i1)), int64_t(y.nb[1] / sizeof(float)),
                              reinterpret_cast<const float*>(w.row(ri.i1)), y.ne[1], y.ne[0],
                              reinterpret_cast<float*>(row_ptr(out, ri)));
    });
}

const CpuKernel kMoeSum{.op = &ops::kMoeSum, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kMoeSum);

}  // namespace

}  // namespace tessera::cpuk
