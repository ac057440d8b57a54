// topk: cpu::topk_row per row.
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/moe.hpp"
#include "ops/topk.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) {
    const Tensor& x = *y.src[0];
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        cpu::topk_row(reinterpret_cast<const float*>(row_ptr(x, ri)), x.ne[0], y.ne[0],
                      reinterpret_cast<int32_t*>(row_ptr(y, ri)));
    });
}

const CpuKernel kTopk{.op = &ops::kTopk, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kTopk);

}  // namespace

}  // namespace tessera::cpuk
