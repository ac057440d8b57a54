// The several-token path of ActivationPrecision::Q16 on AVX-512 VNNI's 16-bit
// dot products (vpdpwssd: 16 lanes, each adding two int16 products), for the
// integer weight types (groups of 16 or 32 values: group_rows.hpp), where the
// build targets VNNI and the AMX path (amx_gemm.hpp) does not take the
// product: a CPU without AMX tiles, such as AMD's Zen 4 and 5 or Intel's
// Cascade Lake, and on any CPU the types of 16-value groups.
// There the F32 GEMM (packed_gemm.hpp) is bound by the FMA rate, 16
// multiply-adds an instruction; vpdpwssd does 32 at the same rate.
//
// x is rounded as for fewer tokens (16-bit blocks of 32: activations.hpp) and
// each weight group's sum is exact in int32 before its one float scale, the
// AMX path's arithmetic, operation for operation (the same bits where both
// take a type):
//
//   y[t][j] += (d_x[t] * scale[j]) * sum(q_x * q_w) + d_x[t] * sum_x[t] * bias[j]
//
// The team first converts x (shared, then a barrier): each token's 16-bit
// values, per block of 32 its d, and per weight group d * (sum of its
// values). Each thread then
// takes kVnniRows weight rows at a time, unpacks them over all of k, and lays
// each group out for the dot: per pair of values, 16 rows' two values as the
// 16 lanes of a vector (a 16 x 16 transpose of 32-bit pairs). For every
// kVnniTokens tokens it keeps two vectors of rows per token in registers:
// per group 16 vpdpwssd each, with the token's pair of values broadcast, then
// one convert and two FMAs into the float sums, which are y's rows as they
// are (a token's outputs are contiguous).
// Internal linkage: see unpack.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/cpu/integer_gemm.hpp"
#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/matmul/activations.hpp"
#include "kernels/cpu/matmul/group_rows.hpp"

// Defined where this translation unit's flags target AVX-512 VNNI (a native
// build on such a CPU, or the portable build's simd::Avx512Vnni): only then
// is there VNNI code to compile.
#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
#define TESSERA_VNNI_BUILT 1
#include <immintrin.h>
#endif

namespace tessera::cpu::matmul_detail {
namespace {

inline constexpr int64_t kVnniRows = 32;   // two vectors of 16 rows
inline constexpr int kVnniTokens = 6;      // 2 x 6 int32 and 2 x 6 float sums in registers
// From 12 tokens on it is faster than the integer dots of fewer tokens
// (tiled.hpp), which kQ16GemmMinTokens leaves below 16
// (docs/measured-choices.md#q16-gemm-threshold).
inline constexpr int64_t kVnniMinTokens = 2 * kVnniTokens;

// One vector of the laid-out weights (over-aligned: std::vector allocates it so).
struct alignas(64) VnniLanes {
    int32_t v[16];
};

// The converted activations of m tokens over k values, in `work`: the 16-bit
// values [token][k], d [token][block of 32], then d * sum [token][weight
// group of `group` values].
struct VnniActivations {
    int16_t* q;
    float *d, *d_sum;
    int64_t blocks, groups;

    VnniActivations(void* work, int64_t k, int64_t m, int64_t group) : blocks(k / kQ16Block), groups(k / group) {
        q = static_cast<int16_t*>(work);
        d = reinterpret_cast<float*>(q + m * k);
        d_sum = d + m * blocks;
    }
    static size_t bytes(int64_t k, int64_t m, int64_t group) {
        return size_t(m * k) * 2 + size_t(m * (k / kQ16Block + k / group)) * 4;
    }
};

// Whether the VNNI path takes weights of type T (at a k of whole spans), on
// an arch with VNNI code (simd::has_vnni).
template <class T>
constexpr bool vnni_weight_type() {
    return int_gemm_group<T>() == 16 || int_gemm_group<T>() == 32;
}
template <class T>
bool vnni_gemm_applies(int64_t k, int64_t m) {
    return vnni_weight_type<T>() && m >= kVnniMinTokens && k % kSpan == 0 && integer_gemm_allowed();
}

// Defined where the translation unit has VNNI; the driver instantiates it only
// for an Arch with simd::has_vnni and a T with vnni_weight_type<T>().
template <class Arch, class T>
struct VnniGemm;

#ifdef TESSERA_VNNI_BUILT
template <class Arch, class T>
struct VnniGemm {
    using Rows = GroupRows<Arch, T, int(kVnniRows)>;
    static constexpr int64_t kGroup = Rows::kGroup;
    static constexpr int kPairs = int(kGroup / 2), kGroupsPerBlock = int(kQ16Block / kGroup);

    static void convert_token(const MatmulArgs& a, int64_t t, const VnniActivations& act) {
        const auto* x = reinterpret_cast<const float*>(reinterpret_cast<const char*>(a.x) + t * a.x_stride);
        int16_t* q = act.q + t * a.k;
        alignas(64) int8_t hi[kQ16Block], lo[kQ16Block];
        for (int64_t b = 0; b < act.blocks; ++b) {
            const auto terms = Q16Quant<Arch>::quantize(x + b * kQ16Block, hi, lo);
            act.d[t * act.blocks + b] = terms.d;
            for (int h = 0; h < kGroupsPerBlock; ++h) {
                int32_t sum = 0;
                for (int i = h * int(kGroup); i < (h + 1) * int(kGroup); ++i) {
                    const int v = 256 * hi[i] + lo[i];
                    q[b * kQ16Block + i] = int16_t(v);
                    sum += v;
                }
                // |sum| <= 32 * 32639: exact in float.
                act.d_sum[t * act.groups + b * kGroupsPerBlock + h] = terms.min_term(sum);
            }
        }
    }

    static void convert(const MatmulArgs& a, void* work, const ThreadTeam& team) {
        const VnniActivations act(work, a.k, a.m, kGroup);
        const auto [t_begin, t_end] = team.split(a.m);
        for (int64_t t = t_begin; t < t_end; ++t) convert_token(a, t, act);
    }

    // The rows' bytes as the dot reads them: per group, pair p and half h
    // (rows 16h .. 16h + 15), lane r holds values 2p and 2p + 1 of row 16h + r
    // as two int16 (for groups of 16, rows of 8 pairs, the transpose's other
    // 8 outputs unused).
    static void lay_out(const Rows& w, int64_t groups, std::vector<VnniLanes>& panel) {
        panel.resize(size_t(groups * kPairs * 2));
        for (int64_t g = 0; g < groups; ++g)
            for (int h = 0; h < 2; ++h) {
                __m512 rows[16], pairs[16];
                for (int r = 0; r < 16; ++r) {
                    const uint8_t* bytes = w.bytes.data() + (g * kVnniRows + 16 * h + r) * kGroup;
                    __m256i b;
                    if constexpr (kGroup == 32)
                        b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes));
                    else
                        b = _mm256_zextsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes)));
                    rows[r] = _mm512_castsi512_ps(_mm512_cvtepu8_epi16(b));
                }
                ChunkOps<Arch>::transpose(rows, pairs);
                for (int p = 0; p < kPairs; ++p)
                    _mm512_store_ps(panel[size_t((g * kPairs + p) * 2 + h)].v, pairs[p]);
            }
    }

    // y of tokens t0 .. t0 + TB - 1 for the block's rows from j0 (rows of them real).
    template <int TB>
    static void tile_block(const MatmulArgs& a, const Rows& w, const std::vector<VnniLanes>& panel,
                           const VnniActivations& act, int64_t t0, int64_t j0, int rows) {
        __m512 acc[2][TB];
        for (auto& half : acc)
            for (auto& v : half) v = _mm512_setzero_ps();
        for (int64_t g = 0; g < act.groups; ++g) {
            __m512i sums[2][TB];
            for (auto& half : sums)
                for (auto& v : half) v = _mm512_setzero_si512();
            const VnniLanes* wg = panel.data() + g * kPairs * 2;
            const int32_t* xg[TB];
            for (int t = 0; t < TB; ++t)
                xg[t] = reinterpret_cast<const int32_t*>(act.q + (t0 + t) * a.k + g * kGroup);
            for (int p = 0; p < kPairs; ++p) {
                const __m512i w0 = _mm512_load_si512(wg[2 * p].v), w1 = _mm512_load_si512(wg[2 * p + 1].v);
                for (int t = 0; t < TB; ++t) {
                    const __m512i xp = _mm512_set1_epi32(xg[t][p]);
                    sums[0][t] = _mm512_dpwssd_epi32(sums[0][t], w0, xp);
                    sums[1][t] = _mm512_dpwssd_epi32(sums[1][t], w1, xp);
                }
            }
            const float* scale = w.scale.data() + g * kVnniRows;
            const float* bias = w.bias.data() + g * kVnniRows;
            const __m512 scale_h[2] = {_mm512_loadu_ps(scale), _mm512_loadu_ps(scale + 16)};
            const __m512 bias_h[2] = {_mm512_loadu_ps(bias), _mm512_loadu_ps(bias + 16)};
            for (int t = 0; t < TB; ++t) {
                const __m512 d = _mm512_set1_ps(act.d[(t0 + t) * act.blocks + g / kGroupsPerBlock]);
                const __m512 d_sum = _mm512_set1_ps(act.d_sum[(t0 + t) * act.groups + g]);
                for (int h = 0; h < 2; ++h) {
                    acc[h][t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums[h][t]), _mm512_mul_ps(d, scale_h[h]), acc[h][t]);
                    acc[h][t] = _mm512_fmadd_ps(d_sum, bias_h[h], acc[h][t]);
                }
            }
        }
        for (int t = 0; t < TB; ++t) {
            float* y = reinterpret_cast<float*>(reinterpret_cast<char*>(a.y) + (t0 + t) * a.y_stride) + j0;
            for (int h = 0; h < 2; ++h) {
                const int in_half = std::clamp(rows - 16 * h, 0, 16);
                _mm512_mask_storeu_ps(y + 16 * h, __mmask16((1u << in_half) - 1), acc[h][t]);
            }
        }
    }

    template <int TB = kVnniTokens>
    static void tail_block(const MatmulArgs& a, const Rows& w, const std::vector<VnniLanes>& panel,
                           const VnniActivations& act, int64_t t0, int64_t j0, int rows, int tokens) {
        if constexpr (TB > 1) {
            if (tokens < TB) return tail_block<TB - 1>(a, w, panel, act, t0, j0, rows, tokens);
        }
        tile_block<TB>(a, w, panel, act, t0, j0, rows);
    }

    // Rows [j_begin, j_end) for all a.m tokens, from the converted activations.
    static void run(const MatmulArgs& a, void* work, int64_t j_begin, int64_t j_end) {
        const VnniActivations act(work, a.k, a.m, kGroup);
        thread_local Rows w;
        thread_local std::vector<VnniLanes> panel;
        for (int64_t j0 = j_begin; j0 < j_end; j0 += kVnniRows) {
            const int rows = int(std::min<int64_t>(kVnniRows, j_end - j0));
            w.unpack(a, j0, rows);
            lay_out(w, act.groups, panel);
            int64_t t0 = 0;
            for (; t0 + kVnniTokens <= a.m; t0 += kVnniTokens) tile_block<kVnniTokens>(a, w, panel, act, t0, j0, rows);
            if (t0 < a.m) tail_block(a, w, panel, act, t0, j0, rows, int(a.m - t0));
        }
    }
};
#endif

}  // namespace
}  // namespace tessera::cpu::matmul_detail
