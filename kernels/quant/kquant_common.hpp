// Helpers shared by the K-quant definitions (Q2_K..Q6_K) and IQ4_XS: the packing
// of Q4_K/Q5_K's 6-bit scales and mins, and the quantizers' scale searches.
//
// The quantizers minimise the plain squared error of a super-block in two levels.
// Each sub-block first gets its best real scale (and min): a range of candidate
// scales is tried, each refitted by least squares, then steps around the best.
// Then the super-block scale (and min scale) is set from the largest sub-block
// ones, every sub-block picks the integer scale (and min) near its real one that
// quantizes it best, and the super-block scales are refitted by least squares
// for those integers, as long as the error keeps falling.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernels/quant/half.hpp"

namespace tessera::kquant {

inline constexpr int kSuperBlock = 256;  // values per block of every K type (ggml's QK_K)

// Round half to even, as ggml's nearest_int.
inline int round_to_int(float x) { return int(std::nearbyint(x)); }

// The fp16 value closest to x, as a float.
inline float fp16_round(float x) { return fp16_to_fp32(fp32_to_fp16(x)); }

// Q4_K/Q5_K: 8 scales and 8 mins of 6 bits in 12 bytes. Bytes 0-3 hold scales
// 0-3, bytes 4-7 mins 0-3, bytes 8-11 the low nibbles of scale (low) and min
// (high) 4-7; the top two bits of bytes 0-7 hold the high bits of scales and mins 4-7.
struct ScaleMin {
    uint8_t scale, min;
};

constexpr ScaleMin unpack_scale_min(const uint8_t* packed, int j) {
    if (j < 4) return {uint8_t(packed[j] & 63), uint8_t(packed[j + 4] & 63)};
    return {uint8_t((packed[j + 4] & 0xF) | ((packed[j - 4] >> 6) << 4)),
            uint8_t((packed[j + 4] >> 4) | ((packed[j] >> 6) << 4))};
}

constexpr void pack_scale_min(const std::array<ScaleMin, 8>& values, uint8_t* packed) {
    for (int j = 0; j < 4; ++j) {
        const ScaleMin lo = values[j], hi = values[j + 4];
        packed[j] = uint8_t(lo.scale | ((hi.scale >> 4) << 6));
        packed[j + 4] = uint8_t(lo.min | ((hi.min >> 4) << 6));
        packed[j + 8] = uint8_t((hi.scale & 0xF) | ((hi.min & 0xF) << 4));
    }
}

// The searches try kCandidates scales at a time, one per lane of vectors of
// kWidth floats (GCC/Clang vector extension; element-wise arithmetic only).
// Vectors are passed by reference only: their calling convention differs
// between targets.
inline constexpr int kCandidates = 8;
#ifdef __AVX__
inline constexpr int kWidth = 8;
#else
inline constexpr int kWidth = 4;  // wider vectors would be split into scalar code
#endif
inline constexpr int kVectors = kCandidates / kWidth;
using Lanes = float __attribute__((vector_size(kWidth * sizeof(float))));

// Rounds every lane half to even (valid for |t| < 2^22, which the callers'
// clamping ensures).
inline void round_lanes(Lanes& t) {
    constexpr float kBias = 12582912.0f;  // 1.5 * 2^23: adding it leaves no fraction bits
    t = (t + kBias) - kBias;
}

inline void clamp_lanes(Lanes& t, float lo, float hi) {
    const Lanes low = Lanes{} + lo, high = Lanes{} + hi;
    t = t < low ? low : t;
    t = t > high ? high : t;
}

// ---- Affine sub-blocks: value = scale*q - min, q in [0, qmax], min >= 0 ----

struct Affine {
    float scale = 0, min = 0;
};

inline int affine_code(float x, Affine a, int qmax) {
    const float inv = a.scale != 0 ? 1.0f / a.scale : 0.0f;
    return int(std::clamp(std::nearbyint((x + a.min) * inv), 0.0f, float(qmax)));
}

// Sums over a sub-block quantized with one candidate scale and min: of q, q^2,
// x*q and the squared error.
struct AffineSums {
    float q = 0, qq = 0, xq = 0, err = 0;
};

template <int N>
std::array<AffineSums, kCandidates> affine_sums(const float* x, int qmax, const std::array<Affine, kCandidates>& cand) {
    Lanes scale[kVectors], min[kVectors], inv[kVectors];
    for (int c = 0; c < kCandidates; ++c) {
        scale[c / kWidth][c % kWidth] = cand[c].scale;
        min[c / kWidth][c % kWidth] = cand[c].min;
        inv[c / kWidth][c % kWidth] = cand[c].scale != 0 ? 1.0f / cand[c].scale : 0.0f;
    }
    Lanes sum_q[kVectors]{}, sum_qq[kVectors]{}, sum_xq[kVectors]{}, err[kVectors]{};
    for (int i = 0; i < N; ++i) {
        for (int v = 0; v < kVectors; ++v) {
            Lanes q = (x[i] + min[v]) * inv[v];
            clamp_lanes(q, 0.0f, float(qmax));
            round_lanes(q);
            sum_q[v] += q;
            sum_qq[v] += q * q;
            sum_xq[v] += x[i] * q;
            const Lanes diff = scale[v] * q - min[v] - x[i];
            err[v] += diff * diff;
        }
    }
    std::array<AffineSums, kCandidates> sums;
    for (int c = 0; c < kCandidates; ++c) {
        const int v = c / kWidth, lane = c % kWidth;
        sums[c] = {sum_q[v][lane], sum_qq[v][lane], sum_xq[v][lane], err[v][lane]};
    }
    return sums;
}

// The least-squares scale and min (kept >= 0) for the codes behind `s`, and its error.
template <int N>
std::pair<Affine, float> fit_affine(const AffineSums& s, float sum_x, float sum_xx) {
    const float det = N * s.qq - s.q * s.q;
    if (det <= 0) return {{}, INFINITY};
    const float scale = (N * s.xq - sum_x * s.q) / det, offset = (s.qq * sum_x - s.q * s.xq) / det;
    if (offset <= 0) return {{scale, -offset}, sum_xx - scale * s.xq - offset * sum_x};
    return {{s.xq / s.qq, 0.0f}, sum_xx - s.xq * s.xq / s.qq};
}

// Relative steps of the local refinement around the best scale found so far.
inline constexpr std::array<float, kCandidates> kRefineSteps = {0.0f,   -0.01f, 0.01f, -0.02f,
                                                                 0.02f, -0.04f, 0.04f, 0.07f};

// The best real scale and min of one sub-block: the least-squares fits of a
// range of candidate scales, then of steps around the best until none improves.
template <int N>
Affine best_affine(const float* x, int qmax) {
    float lo = 0, hi = x[0], sum_x = 0, sum_xx = 0;
    for (int i = 0; i < N; ++i) {
        lo = std::min(lo, x[i]);
        hi = std::max(hi, x[i]);
        sum_x += x[i];
        sum_xx += x[i] * x[i];
    }
    if (hi <= lo) return {0, -lo};
    Affine best{(hi - lo) / qmax, -lo};
    float best_err = INFINITY;
    auto try_candidates = [&](const std::array<Affine, kCandidates>& cand) {
        bool improved = false;
        for (const AffineSums& s : affine_sums<N>(x, qmax, cand)) {
            const auto [fit, err] = fit_affine<N>(s, sum_x, sum_xx);
            if (!(err < best_err)) continue;
            best_err = err;
            best = fit;
            improved = true;
        }
        return improved;
    };
    // [lo, hi] spans between qmax - 1 and qmax + 1 steps.
    for (int half = 0; half < 2; ++half) {
        std::array<Affine, kCandidates> cand;
        for (int c = 0; c < kCandidates; ++c) {
            const float steps = qmax - 1 + 2.0f * (half * kCandidates + c) / (2 * kCandidates - 1);
            cand[c] = {(hi - lo) / steps, -lo};
        }
        try_candidates(cand);
    }
    for (int iter = 0; iter < 3; ++iter) {
        std::array<Affine, kCandidates> cand;
        for (int c = 0; c < kCandidates; ++c) cand[c] = {best.scale * (1 + kRefineSteps[c]), best.min};
        if (!try_candidates(cand)) break;
    }
    return best;
}

// A super-block of affine sub-blocks: scale_j = d*scales[j], min_j = dmin*mins[j].
template <int kSubLen>
struct AffineBlock {
    static constexpr int kSubBlocks = kSuperBlock / kSubLen;
    float d = 0, dmin = 0;  // fp16-representable
    std::array<uint8_t, kSubBlocks> scales{}, mins{};
    std::array<uint8_t, kSuperBlock> q{};
};

template <int kSubLen>
AffineBlock<kSubLen> quantize_affine_block(const float* x, int qmax, int scale_max) {
    constexpr int kSubBlocks = kSuperBlock / kSubLen;
    std::array<Affine, kSubBlocks> real;
    std::array<float, kSubBlocks> sum_x{};
    float max_scale = 0, max_min = 0;
    for (int j = 0; j < kSubBlocks; ++j) {
        real[j] = best_affine<kSubLen>(x + j * kSubLen, qmax);
        max_scale = std::max(max_scale, real[j].scale);
        max_min = std::max(max_min, real[j].min);
        for (int i = 0; i < kSubLen; ++i) sum_x[j] += x[j * kSubLen + i];
    }
    float d = fp16_round(max_scale / scale_max), dmin = fp16_round(max_min / scale_max);

    AffineBlock<kSubLen> best;
    float best_err = INFINITY;
    for (int iter = 0; iter < 4; ++iter) {
        AffineBlock<kSubLen> cur;
        cur.d = d;
        cur.dmin = dmin;
        float total = 0;
        // Sums of the least-squares problem for d and dmin (x ~ d*u - dmin*v).
        double uu = 0, uv = 0, vv = 0, xu = 0, xv = 0;
        for (int j = 0; j < kSubBlocks; ++j) {
            // The two integer scales next to the real one, each with four mins around the real one.
            const int sc0 = d > 0 ? int(std::clamp(real[j].scale / d, 0.0f, scale_max - 1.0f)) : 0;
            const int m0 = dmin > 0 ? int(std::clamp(real[j].min / dmin - 1, 0.0f, scale_max - 3.0f)) : 0;
            std::array<Affine, kCandidates> cand;
            for (int c = 0; c < kCandidates; ++c) cand[c] = {d * (sc0 + c / 4), dmin * (m0 + c % 4)};
            const auto sums = affine_sums<kSubLen>(x + j * kSubLen, qmax, cand);
            int c = 0;
            for (int k = 1; k < kCandidates; ++k)
                if (sums[k].err < sums[c].err) c = k;
            cur.scales[j] = uint8_t(sc0 + c / 4);
            cur.mins[j] = uint8_t(m0 + c % 4);
            total += sums[c].err;
            const double sc = cur.scales[j], m = cur.mins[j];
            uu += sc * sc * sums[c].qq;
            uv += sc * m * sums[c].q;
            vv += m * m * kSubLen;
            xu += sc * sums[c].xq;
            xv += m * sum_x[j];
        }
        if (!(total < best_err)) break;
        best_err = total;
        best = cur;
        const double det = uu * vv - uv * uv;
        if (det <= 0) break;
        const float new_d = fp16_round(float((xu * vv - uv * xv) / det));
        const float new_dmin = fp16_round(float((uv * xu - uu * xv) / det));
        if (new_d <= 0 || new_dmin < 0 || (new_d == d && new_dmin == dmin)) break;
        d = new_d;
        dmin = new_dmin;
    }
    for (int j = 0; j < kSubBlocks; ++j) {
        const Affine a{best.d * best.scales[j], best.dmin * best.mins[j]};
        for (int i = j * kSubLen; i < (j + 1) * kSubLen; ++i) best.q[i] = uint8_t(affine_code(x[i], a, qmax));
    }
    return best;
}

// ---- Symmetric sub-blocks: value = scale*level ----
// A level set has nearest(t), which replaces each lane of t by the level nearest
// to it; code(t), the code of the level nearest to t; and lowest() and
// highest(), its extreme levels.

struct IntLevels {  // the integers lo..hi, each its own code
    int lo, hi;
    void nearest(Lanes& t) const {
        clamp_lanes(t, float(lo), float(hi));
        round_lanes(t);
    }
    int code(float t) const { return int(std::clamp(std::nearbyint(t), float(lo), float(hi))); }
    float lowest() const { return float(lo); }
    float highest() const { return float(hi); }
};

// Sums over a sub-block quantized with one candidate scale: of level^2, of x*level
// and of the squared error.
struct SymmetricSums {
    float ll = 0, xl = 0, err = 0;
};

template <int N, class Levels>
std::array<SymmetricSums, kCandidates> symmetric_sums(const float* x, const Levels& levels,
                                                      const std::array<float, kCandidates>& cand) {
    Lanes scale[kVectors], inv[kVectors];
    for (int c = 0; c < kCandidates; ++c) {
        scale[c / kWidth][c % kWidth] = cand[c];
        inv[c / kWidth][c % kWidth] = cand[c] != 0 ? 1.0f / cand[c] : 0.0f;
    }
    Lanes sum_ll[kVectors]{}, sum_xl[kVectors]{}, err[kVectors]{};
    for (int i = 0; i < N; ++i) {
        for (int v = 0; v < kVectors; ++v) {
            Lanes level = x[i] * inv[v];
            levels.nearest(level);
            sum_ll[v] += level * level;
            sum_xl[v] += x[i] * level;
            const Lanes diff = scale[v] * level - x[i];
            err[v] += diff * diff;
        }
    }
    std::array<SymmetricSums, kCandidates> sums;
    for (int c = 0; c < kCandidates; ++c) {
        const int v = c / kWidth, lane = c % kWidth;
        sums[c] = {sum_ll[v][lane], sum_xl[v][lane], err[v][lane]};
    }
    return sums;
}

// The best real (signed) scale of one sub-block: the least-squares fits of a
// range of candidate scales, then of steps around the best until none improves.
template <int N, class Levels>
float best_symmetric(const float* x, const Levels& levels) {
    float max = 0, sum_xx = 0;  // max: the value of largest magnitude
    for (int i = 0; i < N; ++i) {
        if (std::fabs(x[i]) > std::fabs(max)) max = x[i];
        sum_xx += x[i] * x[i];
    }
    if (max == 0) return 0;
    float best = max / levels.lowest(), best_err = INFINITY;
    auto try_candidates = [&](const std::array<float, kCandidates>& cand) {
        bool improved = false;
        for (const SymmetricSums& s : symmetric_sums<N>(x, levels, cand)) {
            const float err = sum_xx - s.xl * s.xl / s.ll;
            if (!(s.ll > 0 && err < best_err)) continue;
            best_err = err;
            best = s.xl / s.ll;
            improved = true;
        }
        return improved;
    };
    // The largest value maps to within 25% of either end of the levels.
    for (const float end : {levels.lowest(), levels.highest()}) {
        std::array<float, kCandidates> cand;
        for (int c = 0; c < kCandidates; ++c) cand[c] = max / (end * (0.75f + 0.5f * c / (kCandidates - 1)));
        try_candidates(cand);
    }
    for (int iter = 0; iter < 3; ++iter) {
        std::array<float, kCandidates> cand;
        for (int c = 0; c < kCandidates; ++c) cand[c] = best * (1 + kRefineSteps[c]);
        if (!try_candidates(cand)) break;
    }
    return best;
}

// A super-block of symmetric sub-blocks: scale_j = d*scales[j].
template <int kSubLen>
struct SymmetricBlock {
    static constexpr int kSubBlocks = kSuperBlock / kSubLen;
    float d = 0;  // fp16-representable
    std::array<int, kSubBlocks> scales{};
    std::array<int8_t, kSuperBlock> codes{};
};

// Integer scales lie in [scale_lo, scale_hi] with scale_lo < 0 < scale_hi.
template <int kSubLen, class Levels>
SymmetricBlock<kSubLen> quantize_symmetric_block(const float* x, const Levels& levels, int scale_lo, int scale_hi) {
    constexpr int kSubBlocks = kSuperBlock / kSubLen;
    std::array<float, kSubBlocks> real;
    float max_scale = 0;  // of largest magnitude
    for (int j = 0; j < kSubBlocks; ++j) {
        real[j] = best_symmetric<kSubLen>(x + j * kSubLen, levels);
        if (std::fabs(real[j]) > std::fabs(max_scale)) max_scale = real[j];
    }
    // The largest sub-block scale maps to the wider, negative end of the scales.
    float d = fp16_round(max_scale / scale_lo);

    SymmetricBlock<kSubLen> best;
    float best_err = INFINITY;
    for (int iter = 0; iter < 4; ++iter) {
        SymmetricBlock<kSubLen> cur;
        cur.d = d;
        float total = 0;
        double uu = 0, xu = 0;  // sums of the least-squares problem for d (x ~ d*u)
        for (int j = 0; j < kSubBlocks; ++j) {
            // Eight integer scales around the real one.
            const float below = d != 0 ? std::floor(real[j] / d) - (kCandidates / 2 - 1) : 0.0f;
            const int sc0 = int(std::clamp(below, float(scale_lo), float(scale_hi - kCandidates + 1)));
            std::array<float, kCandidates> cand;
            for (int c = 0; c < kCandidates; ++c) cand[c] = d * (sc0 + c);
            const auto sums = symmetric_sums<kSubLen>(x + j * kSubLen, levels, cand);
            int c = 0;
            for (int k = 1; k < kCandidates; ++k)
                if (sums[k].err < sums[c].err) c = k;
            cur.scales[j] = sc0 + c;
            total += sums[c].err;
            uu += double(cur.scales[j]) * cur.scales[j] * sums[c].ll;
            xu += double(cur.scales[j]) * sums[c].xl;
        }
        if (!(total < best_err)) break;
        best_err = total;
        best = cur;
        const float new_d = uu > 0 ? fp16_round(float(xu / uu)) : 0.0f;
        if (new_d == 0 || new_d == d) break;
        d = new_d;
    }
    for (int j = 0; j < kSubBlocks; ++j) {
        const float scale = best.d * best.scales[j], inv = scale != 0 ? 1.0f / scale : 0.0f;
        for (int i = j * kSubLen; i < (j + 1) * kSubLen; ++i) best.codes[i] = int8_t(levels.code(x[i] * inv));
    }
    return best;
}

// Reference dot product of Q4_K/Q5_K-style blocks (8 sub-blocks of 32 with a
// 6-bit scale and min each, fp16 d and dmin) with Q8_K activation blocks, in
// ggml's arithmetic: integer sums per sub-block, one float scaling per block.
// `quant(block, i)` gives the unsigned quant of value i.
template <class WeightBlock, class ActBlock, class QuantOf>
float dot_scale_min_blocks(const WeightBlock* w, const ActBlock* a, size_t nblocks, QuantOf quant) {
    float sum = 0.0f;
    for (size_t n = 0; n < nblocks; ++n) {
        const WeightBlock& b = w[n];
        int32_t scaled = 0, mins = 0;
        for (int j = 0; j < 8; ++j) {
            const auto [sc, m] = unpack_scale_min(b.scales, j);
            int32_t isum = 0;
            for (int i = 32 * j; i < 32 * j + 32; ++i) isum += quant(b, i) * int32_t(a[n].qs[i]);
            scaled += sc * isum;
            // The min term needs only the activations' sums over the sub-block.
            mins += m * (int32_t(a[n].bsums[2 * j]) + a[n].bsums[2 * j + 1]);
        }
        sum += (a[n].d * fp16_to_fp32(b.d)) * float(scaled) - (a[n].d * fp16_to_fp32(b.dmin)) * float(mins);
    }
    return sum;
}

}  // namespace tessera::kquant
