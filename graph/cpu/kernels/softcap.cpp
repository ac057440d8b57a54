// softcap: cpu::softcap per row.
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/softcap.hpp"
#include "ops/softcap.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) {
    const float cap = y.param<SoftcapParams>().cap;
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        cpu::softcap(reinterpret_cast<const float*>(row_ptr(*y.src[0], ri)), reinterpret_cast<float*>(row_ptr(y, ri)),
                     y.ne[0], cap);
    });
}

const CpuKernel kSoftcap{.op = &ops::kSoftcap, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kSoftcap);

}  // namespace

}  // namespace tessera::cpuk
