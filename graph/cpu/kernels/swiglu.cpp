// swiglu: cpu::swiglu per row, the second operand's rows repeated over the first's.
#include "graph/cpu/kernels/binary_rows.hpp"
#include "kernels/cpu/swiglu.hpp"
#include "ops/swiglu.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) { run_binary_rows(y, ctx, cpu::swiglu); }

const CpuKernel kSwiglu{.op = &ops::kSwiglu, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kSwiglu);

}  // namespace

}  // namespace tessera::cpuk
