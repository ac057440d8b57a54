#include "kernels/cpu/arith.hpp"

namespace tessera::cpu {
namespace {

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

}  // namespace

template <class Arch>
void Add::operator()(Arch, const float* a, const float* b, float* y, int64_t n) const {
    apply_binary<Arch>(a, b, y, n, [](auto p, auto q) { return p + q; });
}

template <class Arch>
void Mul::operator()(Arch, const float* a, const float* b, float* y, int64_t n) const {
    apply_binary<Arch>(a, b, y, n, [](auto p, auto q) { return p * q; });
}

template <class Arch>
void Scale::operator()(Arch, const float* x, float s, float* y, int64_t n) const {
    using Batch = xsimd::batch<float, Arch>;
    constexpr int64_t width = Batch::size;
    const Batch s_b(s);
    int64_t i = 0;
    for (; i + width <= n; i += width) (Batch::load_unaligned(x + i) * s_b).store_unaligned(y + i);
    for (; i < n; ++i) y[i] = x[i] * s;
}

template void Add::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, const float*, float*, int64_t) const;
template void Mul::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, const float*, float*, int64_t) const;
template void Scale::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, float, float*, int64_t) const;

}  // namespace tessera::cpu
