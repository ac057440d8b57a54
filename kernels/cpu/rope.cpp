#include "kernels/cpu/avx512_intrinsics_warning.hpp"
#include "kernels/cpu/rope.hpp"

#include <cmath>
#include <cstring>

namespace tessera::cpu {
namespace {

// Lane i of a batch takes lane i ^ 1: swaps the two dims of each adjacent pair.
struct SwapPairs {
    static constexpr unsigned get(unsigned i, unsigned) { return i ^ 1u; }
};

}  // namespace

template <class Arch>
void RopeAngles::operator()(Arch, double pos, const double* rate, float* cos, float* sin, int64_t n) const {
    using Batch = xsimd::batch<double, Arch>;
    constexpr int64_t width = Batch::size;
    int64_t i = 0;
    for (; i + width <= n; i += width) {
        const auto [s, c] = xsimd::sincos(Batch(pos) * Batch::load_unaligned(rate + i));
        c.store_unaligned(cos + i);
        s.store_unaligned(sin + i);
    }
    for (; i < n; ++i) {
        cos[i] = float(std::cos(pos * rate[i]));
        sin[i] = float(std::sin(pos * rate[i]));
    }
}

template <class Arch>
void RopeRotate::operator()(Arch, const float* x, float* y, int64_t head_dim, int64_t n_heads, int64_t n_rot,
                            RopeMode mode, const float* cos, const float* sin) const {
    using Batch = xsimd::batch<float, Arch>;
    constexpr int64_t width = Batch::size;
    const auto swap_pairs = xsimd::make_batch_constant<xsimd::batch<uint32_t, Arch>, SwapPairs>();
    for (int64_t h = 0; h < n_heads; ++h) {
        const float* xh = x + h * head_dim;
        float* yh = y + h * head_dim;
        if (mode == RopeMode::Normal) {
            // A batch holds whole pairs (width is even), so the partners are a lane swap away.
            int64_t d = 0;
            for (; d + width <= n_rot; d += width) {
                const Batch v = Batch::load_unaligned(xh + d);
                const Batch r = xsimd::fma(v, Batch::load_unaligned(cos + d),
                                           xsimd::swizzle(v, swap_pairs) * Batch::load_unaligned(sin + d));
                r.store_unaligned(yh + d);
            }
            for (; d < n_rot; d += 2) {
                const float a = xh[d], b = xh[d + 1];
                yh[d] = a * cos[d] + b * sin[d];
                yh[d + 1] = b * cos[d + 1] + a * sin[d + 1];
            }
        } else {
            // Both halves are read before either is written, so y may be x.
            const int64_t half = n_rot / 2;
            int64_t i = 0;
            for (; i + width <= half; i += width) {
                const Batch a = Batch::load_unaligned(xh + i), b = Batch::load_unaligned(xh + half + i);
                const Batch ra = xsimd::fma(a, Batch::load_unaligned(cos + i), b * Batch::load_unaligned(sin + i));
                const Batch rb = xsimd::fma(b, Batch::load_unaligned(cos + half + i),
                                            a * Batch::load_unaligned(sin + half + i));
                ra.store_unaligned(yh + i);
                rb.store_unaligned(yh + half + i);
            }
            for (; i < half; ++i) {
                const float a = xh[i], b = xh[half + i];
                yh[i] = a * cos[i] + b * sin[i];
                yh[half + i] = b * cos[half + i] + a * sin[half + i];
            }
        }
        if (y != x) std::memcpy(yh + n_rot, xh + n_rot, size_t(head_dim - n_rot) * sizeof(float));
    }
}

template void RopeAngles::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, double, const double*, float*, float*,
                                                        int64_t) const;
template void RopeRotate::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, float*, int64_t, int64_t,
                                                        int64_t, RopeMode, const float*, const float*) const;

}  // namespace tessera::cpu
