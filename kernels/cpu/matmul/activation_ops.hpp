// The arch-specific loops of the activation conversion (activations.hpp), on
// n values, n a multiple of 32:
//   max_abs(x, n)                    max |x[i]|, NaNs skipped
//   first_of_magnitude(x, n, m)      the first i with |x[i]| == m (one exists)
//   round_bytes(x, n, s, q)          q[i] = min(127, nearbyint(x[i] * s))
//   round_halves(x, n, s, hi, lo)    v = nearbyint(x[i] * s) (|v| < 2^15) as two signed
//                                    bytes, hi = (v + 128) >> 8 and lo = v - 256 * hi
//   sums4<kAdd>(a, n, c, out)        out[l] (+)= c * (a[4l] + a[4l + 1] + a[4l + 2] + a[4l + 3])
//   group_sums<G>(a, n, c, out)      out[g] (+)= c * (the sum of a[G g .. G g + G)), G 16 or 32
// nearbyint rounds half to even (the default rounding mode). The primary
// template is plain C++; AVX-512 has a specialization (activation_ops_avx512.hpp),
// whose stores and loads are paired so that each load reads one earlier store.
// Internal linkage: see unpack.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/cpu/matmul/chunk_ops.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

template <class Arch>
struct ActivationOps {
    static float max_abs(const float* x, int64_t n) {
        float m = 0.0f;
        for (int64_t i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));  // a NaN compares false: skipped
        return m;
    }
    static int64_t first_of_magnitude(const float* x, int64_t, float m) {
        int64_t i = 0;
        while (std::fabs(x[i]) != m) ++i;
        return i;
    }
    static void round_bytes(const float* x, int64_t n, float s, int8_t* q) {
        for (int64_t i = 0; i < n; ++i) q[i] = int8_t(std::min(127.0f, std::nearbyint(x[i] * s)));
    }
    static void round_halves(const float* x, int64_t n, float s, int8_t* hi, int8_t* lo) {
        for (int64_t i = 0; i < n; ++i) {
            const int32_t v = int32_t(std::nearbyint(x[i] * s)), h = (v + 128) >> 8;
            hi[i] = int8_t(h);
            lo[i] = int8_t(v - 256 * h);
        }
    }
    template <bool kAdd>
    static void sums4(const int8_t* a, int64_t n, int32_t c, int32_t* out) {
        for (int64_t l = 0; l < n / 4; ++l)
            out[l] = (kAdd ? out[l] : 0) + c * (a[4 * l] + a[4 * l + 1] + a[4 * l + 2] + a[4 * l + 3]);
    }
    template <int G, bool kAdd>
    static void group_sums(const int8_t* a, int64_t n, int32_t c, int32_t* out) {
        for (int64_t g = 0; g < n / G; ++g) {
            int32_t sum = 0;
            for (int64_t e = G * g; e < G * (g + 1); ++e) sum += a[e];
            out[g] = (kAdd ? out[g] : 0) + c * sum;
        }
    }
};

}  // namespace
}  // namespace tessera::cpu::matmul_detail

#include "kernels/cpu/matmul/activation_ops_avx512.hpp"
