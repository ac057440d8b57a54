// The dispatching entry point of rope, its angle tables and its scalar fallback.
// Compiled without arch flags: in a portable build this code runs on any
// x86-64 CPU before an arch is picked.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/cpu/rope.hpp"
#include "kernels/simd/dispatch.hpp"
#include "support/error.hpp"

namespace tessera::cpu {

void RopeAngles::operator()(simd::Scalar, double pos, const double* rate, float* cos, float* sin, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) {
        cos[i] = float(std::cos(pos * rate[i]));
        sin[i] = float(std::sin(pos * rate[i]));
    }
}

void RopeRotate::operator()(simd::Scalar, const float* x, float* y, int64_t head_dim, int64_t n_heads, int64_t n_rot,
                            RopeMode mode, const float* cos, const float* sin) const {
    // Dims d and d + step form a pair, first dims at d = start, start + stride, ...
    const int64_t step = mode == RopeMode::Normal ? 1 : n_rot / 2;
    const int64_t stride = mode == RopeMode::Normal ? 2 : 1;
    const int64_t pairs = n_rot / 2;
    for (int64_t h = 0; h < n_heads; ++h) {
        const float* xh = x + h * head_dim;
        float* yh = y + h * head_dim;
        for (int64_t p = 0; p < pairs; ++p) {
            const int64_t d = p * stride, e = d + step;
            const float a = xh[d], b = xh[e];
            yh[d] = a * cos[d] + b * sin[d];
            yh[e] = b * cos[e] + a * sin[e];
        }
        if (y != x) std::memcpy(yh + n_rot, xh + n_rot, size_t(head_dim - n_rot) * sizeof(float));
    }
}

namespace {

// Per-dim angle rates of one (n_rot, freq_base, mode, frequency divisors),
// kept per thread so a model's many rope calls compute them once: dim d of
// pair i turns at freq_base^(-2i/n_rot) / freq_factors[i] radians per
// position (no divisor without factors), negated for the first dim of the
// pair (sin(-t) = -sin(t) gives that dim's minus sign, see rope.hpp).
struct RopeTables {
    int n_rot = -1;
    float freq_base = 0.0f;
    RopeMode mode = RopeMode::Normal;
    // The divisors the rates hold, empty without. Compared by value, not by
    // address: another model's factors may later sit where these were.
    std::vector<float> factors;
    std::vector<double> rate;
    std::vector<float> cos, sin;

    bool made_for(const RopeParams& p, const float* freq_factors) const {
        if (p.n_rot != n_rot || p.freq_base != freq_base || p.mode != mode) return false;
        if (freq_factors == nullptr) return factors.empty();
        return factors.size() == size_t(n_rot / 2) && std::equal(factors.begin(), factors.end(), freq_factors);
    }

    void prepare(const RopeParams& p, const float* freq_factors) {
        if (made_for(p, freq_factors)) return;
        n_rot = p.n_rot;
        freq_base = p.freq_base;
        mode = p.mode;
        const int64_t half = n_rot / 2;
        if (freq_factors)
            factors.assign(freq_factors, freq_factors + half);
        else
            factors.clear();
        rate.assign(size_t(n_rot), 0.0);
        for (int64_t i = 0; i < half; ++i) {
            double r = std::pow(double(freq_base), -2.0 * double(i) / double(n_rot));
            if (freq_factors) r /= double(freq_factors[i]);
            const int64_t first = mode == RopeMode::Normal ? 2 * i : i;
            const int64_t second = mode == RopeMode::Normal ? 2 * i + 1 : half + i;
            rate[size_t(first)] = -r;
            rate[size_t(second)] = r;
        }
        cos.resize(size_t(n_rot));
        sin.resize(size_t(n_rot));
    }
};

}  // namespace

void rope(const float* x, float* y, int64_t head_dim, int64_t n_heads, int32_t pos, const RopeParams& p,
          const float* freq_factors) {
    if (p.n_rot < 0 || p.n_rot % 2 != 0 || p.n_rot > head_dim)
        throw Error("rope: n_rot " + std::to_string(p.n_rot) + " must be even and within the head size " +
                    std::to_string(head_dim));
    static auto angles = simd::dispatch<simd::CpuArchs>(RopeAngles{});
    static auto rotate = simd::dispatch<simd::CpuArchs>(RopeRotate{});
    thread_local RopeTables tables;
    tables.prepare(p, freq_factors);
    angles(double(pos) * double(p.freq_scale), tables.rate.data(), tables.cos.data(), tables.sin.data(),
           int64_t(p.n_rot));
    if (p.attn_factor != 1.0f)
        for (int64_t d = 0; d < p.n_rot; ++d) {
            tables.cos[size_t(d)] *= p.attn_factor;
            tables.sin[size_t(d)] *= p.attn_factor;
        }
    rotate(x, y, head_dim, n_heads, int64_t(p.n_rot), p.mode, tables.cos.data(), tables.sin.data());
}

}  // namespace tessera::cpu
