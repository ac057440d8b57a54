// mul: cpu::mul per row, the second operand's rows repeated over the first's.
#include "graph/cpu/kernels/binary_rows.hpp"
#include "kernels/cpu/mul.hpp"
#include "ops/mul.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) { run_binary_rows(y, ctx, cpu::mul); }

const CpuKernel kMul{.op = &ops::kMul, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kMul);

}  // namespace

}  // namespace tessera::cpuk
