// add: cpu::add per row, the second operand's rows repeated over the first's.
#include "graph/cpu/kernels/binary_rows.hpp"
#include "kernels/cpu/add.hpp"
#include "ops/add.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) { run_binary_rows(y, ctx, cpu::add); }

const CpuKernel kAdd{.op = &ops::kAdd, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kAdd);

}  // namespace

}  // namespace tessera::cpuk
