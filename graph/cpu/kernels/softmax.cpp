// softmax: cpu::softmax per row, over the row's unmasked entries.
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/softmax.hpp"
#include "ops/softmax.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) {
    const Tensor& x = *y.src[0];
    const float scale = y.param<SoftmaxParams>().scale;
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        cpu::softmax(reinterpret_cast<const float*>(row_ptr(x, ri)), reinterpret_cast<float*>(row_ptr(y, ri)),
                     y.ne[0], scale, softmax_unmasked(y, ri), nullptr);
    });
}

const CpuKernel kSoftmax{.op = &ops::kSoftmax, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kSoftmax);

}  // namespace

}  // namespace tessera::cpuk
