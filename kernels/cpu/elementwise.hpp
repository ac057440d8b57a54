// What the per-arch elementwise kernels (add, mul) share.
#pragma once

#include <cstdint>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

// y[i] = op(a[i], b[i]) with batches, then the scalar tail.
template <class Arch, class Op>
void apply_binary(const float* a, const float* b, float* y, int64_t n, Op op) {
    using Batch = xsimd::batch<float, Arch>;
    constexpr int64_t width = Batch::size;
    int64_t i = 0;
    for (; i + width <= n; i += width)
        op(Batch::load_unaligned(a + i), Batch::load_unaligned(b + i)).store_unaligned(y + i);
    for (; i < n; ++i) y[i] = op(a[i], b[i]);
}

}  // namespace tessera::cpu
