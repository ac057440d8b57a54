// The dispatching entry points of the elementwise, norm, rope, softmax and
// conversion kernels, and their scalar fallbacks. Compiled without arch flags:
// in a portable build this code must run on any x86-64 CPU before it has
// picked an arch.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/arith.hpp"
#include "kernels/cpu/convert.hpp"
#include "kernels/cpu/rms_norm.hpp"
#include "kernels/cpu/rope.hpp"
#include "kernels/cpu/silu.hpp"
#include "kernels/cpu/softmax.hpp"
#include "kernels/quant/half.hpp"
#include "kernels/quant/registry.hpp"
#include "support/error.hpp"

namespace tessera::cpu {

// ---- rms_norm

void RmsNorm::operator()(simd::Scalar, const float* x, const float* w, float* y, int64_t n, float eps) const {
    if (n <= 0) return;
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) sum += double(x[i]) * x[i];
    const float inv = float(1.0 / std::sqrt(sum / double(n) + double(eps)));
    for (int64_t i = 0; i < n; ++i) y[i] = w ? x[i] * inv * w[i] : x[i] * inv;
}

void rms_norm(const float* x, float* y, int64_t n, float eps) {
    static auto kernel = xsimd::dispatch<simd::CpuArchs>(RmsNorm{});
    kernel(x, nullptr, y, n, eps);
}

void rms_norm_mul(const float* x, const float* w, float* y, int64_t n, float eps) {
    static auto kernel = xsimd::dispatch<simd::CpuArchs>(RmsNorm{});
    kernel(x, w, y, n, eps);
}

// ---- rope

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
    static auto angles = xsimd::dispatch<simd::CpuArchs>(RopeAngles{});
    static auto rotate = xsimd::dispatch<simd::CpuArchs>(RopeRotate{});
    thread_local RopeTables tables;
    tables.prepare(p, freq_factors);
    angles(double(pos) * double(p.freq_scale), tables.rate.data(), tables.cos.data(), tables.sin.data(),
           int64_t(p.n_rot));
    rotate(x, y, head_dim, n_heads, int64_t(p.n_rot), p.mode, tables.cos.data(), tables.sin.data());
}

// ---- softmax

void Softmax::operator()(simd::Scalar, const float* x, float* y, int64_t n, float scale, int64_t n_valid,
                         const float* mask) const {
    float max = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < n_valid; ++i) {
        y[i] = x[i] * scale + (mask ? mask[i] : 0.0f);
        max = std::max(max, y[i]);
    }
    if (max == -std::numeric_limits<float>::infinity()) n_valid = 0;  // nothing to weigh: all zeros
    double sum = 0.0;
    for (int64_t i = 0; i < n_valid; ++i) {
        y[i] = std::exp(y[i] - max);
        sum += double(y[i]);
    }
    const float inv = float(1.0 / sum);
    for (int64_t i = 0; i < n_valid; ++i) y[i] *= inv;
    for (int64_t i = n_valid; i < n; ++i) y[i] = 0.0f;
}

void softmax(const float* x, float* y, int64_t n, float scale, int64_t n_valid, const float* mask) {
    if (n_valid < 0 || n_valid > n)
        throw Error("softmax: n_valid " + std::to_string(n_valid) + " is outside the row of " + std::to_string(n));
    static auto kernel = xsimd::dispatch<simd::CpuArchs>(Softmax{});
    kernel(x, y, n, scale, n_valid, mask);
}

// ---- silu, swiglu

void Silu::operator()(simd::Scalar, const float* x, float* y, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i]));
}

void Swiglu::operator()(simd::Scalar, const float* gate, const float* up, float* y, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) y[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

void silu(const float* x, float* y, int64_t n) {
    static auto kernel = xsimd::dispatch<simd::CpuArchs>(Silu{});
    kernel(x, y, n);
}

void swiglu(const float* gate, const float* up, float* y, int64_t n) {
    static auto kernel = xsimd::dispatch<simd::CpuArchs>(Swiglu{});
    kernel(gate, up, y, n);
}

// ---- add, mul, scale

void Add::operator()(simd::Scalar, const float* a, const float* b, float* y, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

void Mul::operator()(simd::Scalar, const float* a, const float* b, float* y, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

void Scale::operator()(simd::Scalar, const float* x, float s, float* y, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * s;
}

void add(const float* a, const float* b, float* y, int64_t n) {
    static auto kernel = xsimd::dispatch<simd::CpuArchs>(Add{});
    kernel(a, b, y, n);
}

void mul(const float* a, const float* b, float* y, int64_t n) {
    static auto kernel = xsimd::dispatch<simd::CpuArchs>(Mul{});
    kernel(a, b, y, n);
}

void scale(const float* x, float s, float* y, int64_t n) {
    static auto kernel = xsimd::dispatch<simd::CpuArchs>(Scale{});
    kernel(x, s, y, n);
}

// ---- conversions

void F32ToF16::operator()(simd::Scalar, const float* src, uint16_t* dst, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) dst[i] = fp32_to_fp16(src[i]);
}

void F16ToF32::operator()(simd::Scalar, const uint16_t* src, float* dst, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) dst[i] = fp16_to_fp32(src[i]);
}

void Bf16ToF32::operator()(simd::Scalar, const uint16_t* src, float* dst, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_fp32(src[i]);
}

namespace {

void check_row_length(const char* what, int64_t n) {
    if (n < 0) throw Error(std::string(what) + ": row length " + std::to_string(n) + " is negative");
}

}  // namespace

void convert_f32_to(GgmlType dst_type, const float* src, void* dst, int64_t n) {
    check_row_length("convert_f32_to", n);
    switch (dst_type) {
        case GgmlType::F32:
            std::memmove(dst, src, size_t(n) * sizeof(float));
            return;
        case GgmlType::F16: {
            static auto kernel = xsimd::dispatch<simd::CpuArchs>(F32ToF16{});
            kernel(src, static_cast<uint16_t*>(dst), n);
            return;
        }
        case GgmlType::BF16: {
            auto* out = static_cast<uint16_t*>(dst);
            for (int64_t i = 0; i < n; ++i) out[i] = fp32_to_bf16(src[i]);
            return;
        }
        default:
            require_quant_type(dst_type, "convert_f32_to").quantize(src, dst, n);
    }
}

void convert_to_f32(GgmlType src_type, const void* src, float* dst, int64_t n) {
    check_row_length("convert_to_f32", n);
    switch (src_type) {
        case GgmlType::F32:
            std::memmove(dst, src, size_t(n) * sizeof(float));
            return;
        case GgmlType::F16: {
            static auto kernel = xsimd::dispatch<simd::CpuArchs>(F16ToF32{});
            kernel(static_cast<const uint16_t*>(src), dst, n);
            return;
        }
        case GgmlType::BF16: {
            static auto kernel = xsimd::dispatch<simd::CpuArchs>(Bf16ToF32{});
            kernel(static_cast<const uint16_t*>(src), dst, n);
            return;
        }
        default:
            require_quant_type(src_type, "convert_to_f32").dequantize(src, dst, n);
    }
}

}  // namespace tessera::cpu
