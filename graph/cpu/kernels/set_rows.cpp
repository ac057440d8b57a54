// set_rows: cpu::convert_f32_to of each source row into its destination row.
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/convert.hpp"
#include "ops/set_rows.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) {
    const Tensor& src = *y.src[1];
    for_my_rows(src, ctx.team, [&](RowIndex ri) {
        if (const auto to = set_rows_destination(y, ri))
            cpu::convert_f32_to(y.type, reinterpret_cast<const float*>(row_ptr(src, ri)), row_ptr(y, *to), y.ne[0]);
    });
}

const CpuKernel kSetRows{.op = &ops::kSetRows, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kSetRows);

}  // namespace

}  // namespace tessera::cpuk
