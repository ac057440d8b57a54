// rope: cpu::rope on one token (all its heads) per work item, with the
// node's frequency divisors where it has them.
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/rope.hpp"
#include "ops/rope.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) {
    const Tensor& x = *y.src[0];
    const Tensor& pos = *y.src[1];
    const RopeParams& p = y.param<RopeParams>();
    const Tensor* f = rope_freq_factors(y);
    const float* factors = f ? static_cast<const float*>(f->data) : nullptr;
    const auto [begin, end] = ctx.team.split(y.ne[2] * y.ne[3]);
    for (int64_t t = begin; t < end; ++t) {
        const RowIndex ri{0, t % y.ne[2], t / y.ne[2]};
        const int32_t position = element<int32_t>(pos, ri.i2, {0, 0, 0});
        cpu::rope(reinterpret_cast<const float*>(row_ptr(x, ri)), reinterpret_cast<float*>(row_ptr(y, ri)),
                  x.ne[0], x.ne[1], position, p, factors);
    }
}

const CpuKernel kRope{.op = &ops::kRope, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kRope);

}  // namespace

}  // namespace tessera::cpuk
