// The CPU kernels of the binary elementwise ops (add, mul, swiglu): `f` per
// row of the output, the second operand's rows repeated over the first's.
#pragma once

#include "graph/cpu/cpu_kernel.hpp"
#include "graph/row_loop.hpp"

namespace tessera::cpuk {

template <class RowFn>
void run_binary_rows(const Tensor& y, const CpuContext& ctx, RowFn f) {
    const Tensor& a = *y.src[0];
    const Tensor& b = *y.src[1];
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        f(reinterpret_cast<const float*>(row_ptr(a, ri)), reinterpret_cast<const float*>(row_ptr(b, repeated(b, ri))),
          reinterpret_cast<float*>(row_ptr(y, ri)), y.ne[0]);
    });
}

}  // namespace tessera::cpuk
