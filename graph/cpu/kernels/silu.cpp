// silu: cpu::silu per row.
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/silu.hpp"
#include "ops/silu.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) {
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        cpu::silu(reinterpret_cast<const float*>(row_ptr(*y.src[0], ri)), reinterpret_cast<float*>(row_ptr(y, ri)),
                  y.ne[0]);
    });
}

const CpuKernel kSilu{.op = &ops::kSilu, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kSilu);

}  // namespace

}  // namespace tessera::cpuk
