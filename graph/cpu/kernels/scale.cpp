// scale: cpu::scale per row.
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/scale.hpp"
#include "ops/scale.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) {
    const float s = y.param<ScaleParams>().s;
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        cpu::scale(reinterpret_cast<const float*>(row_ptr(*y.src[0], ri)), s, reinterpret_cast<float*>(row_ptr(y, ri)),
                   y.ne[0]);
    });
}

const CpuKernel kScale{.op = &ops::kScale, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kScale);

}  // namespace

}  // namespace tessera::cpuk
