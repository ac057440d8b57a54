// swiglu: cpu::swiglu per row, the second operand's rows repeated over the first's.
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/swiglu.hpp"
#include "ops/swiglu.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) {
    const Tensor& a = *y.src[0];
    const Tensor& b = *y.src[1];
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        cpu::swiglu(reinterpret_cast<const float*>(row_ptr(a, ri)), reinterpret_cast<const float*>(row_ptr(b, repeated(b, ri))),
                 reinterpret_cast<float*>(row_ptr(y, ri)), y.ne[0]);
    });
}

const CpuKernel kSwiglu{.op = &ops::kSwiglu, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kSwiglu);

}  // namespace

}  // namespace tessera::cpuk
