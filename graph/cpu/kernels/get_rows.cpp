// get_rows: cpu::convert_to_f32 of each id's table row.
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/convert.hpp"
#include "ops/get_rows.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) {
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        cpu::convert_to_f32(y.src[0]->type, get_rows_source(y, ri), reinterpret_cast<float*>(row_ptr(y, ri)), y.ne[0]);
    });
}

const CpuKernel kGetRows{.op = &ops::kGetRows, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kGetRows);

}  // namespace

}  // namespace tessera::cpuk
