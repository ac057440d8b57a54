// matmul: cpu::matmul on each (i2, i3) batch (docs/cpu-matmul.md), then the
// addend row by row.
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/add.hpp"
#include "kernels/cpu/matmul.hpp"
#include "ops/matmul.hpp"

namespace tessera::cpuk {

namespace {

cpu::MatmulArgs args(const Tensor& y, int64_t i2, int64_t i3) {
    const Tensor& w = *y.src[0];
    const Tensor& x = *y.src[1];
    return {.weight_type = w.type,
            .w = w.data,
            .w_stride = w.nb[1],
            .x = reinterpret_cast<const float*>(x.row(0, i2, i3)),
            .x_stride = x.nb[1],
            .y = reinterpret_cast<float*>(y.row(0, i2, i3)),
            .y_stride = y.nb[1],
            .n = w.ne[1],
            .k = w.ne[0],
            .m = x.ne[1],
            .activations = y.param<ActivationPrecision>()};
}

void run(const Tensor& y, const CpuContext& ctx) {
    // Each (i2, i3) batch is one product; every thread takes part in each.
    for (int64_t i3 = 0; i3 < y.ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < y.ne[2]; ++i2) {
            if (i2 + i3 > 0) ctx.team.barrier();  // the work buffer is reused
            cpu::matmul(args(y, i2, i3), ctx.work, ctx.team);
        }
    if (y.src.size() > 2) {
        const Tensor& plus = *y.src[2];
        ctx.team.barrier();
        for_my_rows(y, ctx.team, [&](RowIndex ri) {
            auto* row = reinterpret_cast<float*>(row_ptr(y, ri));
            cpu::add(row, reinterpret_cast<const float*>(row_ptr(plus, repeated(plus, ri))), row, y.ne[0]);
        });
    }
}

size_t work_bytes(const Tensor& y, int n_threads) {
    return cpu::matmul_work_bytes(y.src[0]->type, y.src[0]->ne[0], y.ne[1], y.param<ActivationPrecision>(), n_threads);
}

const CpuKernel kMatmul{.op = &ops::kMatmul, .run = run, .work_bytes = work_bytes};
[[maybe_unused]] const bool registered = register_kernel(kMatmul);

}  // namespace

}  // namespace tessera::cpuk
