// transfer: std::memcpy of each row into the dense copy.
#include <cstring>

#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"
#include "graph/transfer.hpp"

namespace tessera::cpuk {

namespace {

void run(const Tensor& y, const CpuContext& ctx) {
    for_my_rows(y, ctx.team, [&](RowIndex ri) { std::memcpy(row_ptr(y, ri), row_ptr(*y.src[0], ri), y.row_bytes()); });
}

const CpuKernel kTransfer{.op = &ops::kTransfer, .run = run};
[[maybe_unused]] const bool registered = register_kernel(kTransfer);

}  // namespace

}  // namespace tessera::cpuk
