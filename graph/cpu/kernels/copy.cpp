// copy: cpu::convert_f32_to, row by row (src[0] = source, src[1] = destination).
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/convert.hpp"
#include "ops/copy.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) {
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        cpu::convert_f32_to(y.type, reinterpret_cast<const float*>(row_ptr(*y.src[0], ri)), row_ptr(y, ri), y.ne[0]);
    });
}

const CpuKernel kCopy{.op = &ops::kCopy, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kCopy);

}  // namespace

}  // namespace tessera::cpuk
