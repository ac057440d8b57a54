// rms_norm: cpu::rms_norm per row, or cpu::rms_norm_mul with the weight.
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/rms_norm.hpp"
#include "ops/rms_norm.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) {
    const Tensor& x = *y.src[0];
    const float* w = y.src.size() > 1 ? static_cast<const float*>(y.src[1]->data) : nullptr;
    const float eps = y.param<RmsNormParams>().eps;
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        const auto* xr = reinterpret_cast<const float*>(row_ptr(x, ri));
        auto* yr = reinterpret_cast<float*>(row_ptr(y, ri));
        if (w)
            cpu::rms_norm_mul(xr, w, yr, x.ne[0], eps);
        else
            cpu::rms_norm(xr, yr, x.ne[0], eps);
    });
}

const CpuKernel kRmsNorm{.op = &ops::kRmsNorm, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kRmsNorm);

}  // namespace

}  // namespace tessera::cpuk
