// geglu: cpu::geglu per row, the second operand's rows repeated over the first's.
#include "graph/cpu/kernels/binary_rows.hpp"
#include "kernels/cpu/geglu.hpp"
#include "ops/geglu.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) { run_binary_rows(y, ctx, cpu::geglu); }

const CpuKernel kGeglu{.op = &ops::kGeglu, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kGeglu);

}  // namespace

}  // namespace tessera::cpuk
