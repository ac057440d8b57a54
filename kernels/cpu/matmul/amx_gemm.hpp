// The several-token path of ActivationPrecision::Q16 on Intel's AMX tiles
// (AMX-INT8), for integer weight types whose groups are 32 values (Q4_0,
// Q4_K, Q8_0, ...), where the CPU has them (amx.hpp). Where it runs, x is
// rounded as for fewer tokens (16-bit blocks of 32: activations.hpp), not
// read as it is as the F32 GEMM (packed_gemm.hpp) does.
//
// The team first converts x into the tiles' layout (shared, then a barrier):
// per 16 tokens and group of 32 values, the values' high and low bytes as two
// 8 x 64-byte tiles (row r: the 4 values 4r .. 4r + 3 of each token), each
// token's d and d * (sum of its values). Then each thread takes 16 weight
// rows at a time, unpacks them over all of k (group_rows.hpp: the type's chunks
// as bytes, its group scales and offsets as floats), and for every 16 tokens and group
// multiplies the 16 x 32 bytes of weights with both activation tiles
// (tdpbusd: u8 x s8, exact int32 sums), stores the two 16 x 16 sums, and adds
// them to 16 float accumulators (a row's tokens in one vector):
//
//   y[t][j] += d_x[t] * scale[j] * (256 * hi_sum + lo_sum) + d_x[t] * sum_x[t] * bias[j]
//
// with bias = min - kOffset * scale as packed_gemm.hpp's dequantize_span has it.
// A group needs its own sums because its scales are its own; storing the two
// sum tiles is what bounds the loop (docs/cpu-matmul.md).
// Internal linkage: see unpack.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "kernels/cpu/amx.hpp"
#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/matmul/activations.hpp"
#include "kernels/cpu/matmul/group_rows.hpp"

#ifdef TESSERA_AMX_BUILT
#include <immintrin.h>
#endif

namespace tessera::cpu::matmul_detail {
namespace {

// A tile's group: the 16-bit blocks x is rounded in, so that each group has one d.
inline constexpr int64_t kAmxGroup = kQ16Block;
inline constexpr int64_t kAmxTokens = 16;  // a tile's columns
inline constexpr int64_t kAmxRows = 16;    // a tile's rows

// One group of 16 tokens' activations in the tiles' layout.
struct alignas(64) AmxActivationGroup {
    int8_t hi[8 * 64], lo[8 * 64];  // [4-value step][token][4]
    float d[kAmxTokens], d_sum[kAmxTokens];
};

// Bytes of the converted activations of m tokens over k values.
inline size_t amx_activation_bytes(int64_t k, int64_t m) {
    return size_t((m + kAmxTokens - 1) / kAmxTokens) * size_t(k / kAmxGroup) * sizeof(AmxActivationGroup);
}

// Whether the AMX path takes weights of type T at this k (whole spans).
template <class T>
constexpr bool amx_weight_type() {
#ifdef TESSERA_AMX_BUILT
    return int_gemm_group<T>() == kAmxGroup;
#else
    return false;
#endif
}
template <class T>
bool amx_gemm_applies(int64_t k, int64_t m) {
    return amx_weight_type<T>() && m >= kQ16GemmMinTokens && k % kSpan == 0 && amx_usable();
}

// Defined where the build has AMX; the driver instantiates it only where
// amx_weight_type<T>() holds.
template <class Arch, class T>
struct AmxGemm;

#ifdef TESSERA_AMX_BUILT
template <class Arch, class T>
struct AmxGemm {
    using Group = AmxActivationGroup;

    // Token t's activations into its lane of every group of its 16 tokens
    // (zeros for the padding tokens past m).
    static void convert_token(const MatmulArgs& a, int64_t t, Group* groups) {
        const int64_t n_groups = a.k / kAmxGroup;
        const int lane = int(t % kAmxTokens);
        Group* block = groups + (t / kAmxTokens) * n_groups;
        const auto* x = reinterpret_cast<const float*>(reinterpret_cast<const char*>(a.x) + t * a.x_stride);
        alignas(64) int8_t hi[kAmxGroup] = {}, lo[kAmxGroup] = {};
        for (int64_t g = 0; g < n_groups; ++g) {
            typename Q16Quant<Arch>::Terms terms{0.0f};
            int32_t sum = 0;
            if (t < a.m) {
                terms = Q16Quant<Arch>::quantize(x + g * kAmxGroup, hi, lo);
                for (int i = 0; i < kAmxGroup; ++i) sum += 256 * hi[i] + lo[i];
            }
            Group& dst = block[g];
            for (int s = 0; s < 8; ++s) {
                std::memcpy(dst.hi + s * 64 + lane * 4, hi + 4 * s, 4);
                std::memcpy(dst.lo + s * 64 + lane * 4, lo + 4 * s, 4);
            }
            dst.d[lane] = terms.d;
            dst.d_sum[lane] = terms.min_term(sum);  // |sum| <= 32 * 32639: exact in float
        }
    }

    static void convert(const MatmulArgs& a, Group* groups, const ThreadTeam& team) {
        const int64_t padded = (a.m + kAmxTokens - 1) / kAmxTokens * kAmxTokens;
        const auto [t_begin, t_end] = team.split(padded);
        for (int64_t t = t_begin; t < t_end; ++t) convert_token(a, t, groups);
    }

    using Rows = GroupRows<Arch, T, int(kAmxRows)>;

    // Tiles: 0 the weights (16 rows x 32 bytes), 1 and 2 the activations' high
    // and low bytes (8 x 64), 3 and 4 their int32 sums (16 x 16).
    static AmxTileConfig tile_config() {
        AmxTileConfig c;
        c.bytes_per_row[0] = kAmxGroup;
        c.rows[0] = kAmxRows;
        for (int t : {1, 2}) {
            c.bytes_per_row[t] = 64;
            c.rows[t] = kAmxGroup / 4;
        }
        for (int t : {3, 4}) {
            c.bytes_per_row[t] = 64;
            c.rows[t] = kAmxRows;
        }
        return c;
    }

    // y for 16 tokens from tb * 16 and the 16 rows from j0 (rows of them real).
    static void tile_block(const MatmulArgs& a, const Rows& w, const Group* groups, int64_t tb, int64_t j0,
                           int rows) {
        const int64_t n_groups = a.k / kAmxGroup;
        alignas(64) int32_t hi_sums[kAmxRows][kAmxTokens], lo_sums[kAmxRows][kAmxTokens];
        __m512 acc[kAmxRows];
        for (auto& v : acc) v = _mm512_setzero_ps();
        const Group* block = groups + tb * n_groups;
        for (int64_t g = 0; g < n_groups; ++g) {
            _tile_loadd(0, w.bytes.data() + g * kAmxRows * kAmxGroup, kAmxGroup);
            _tile_loadd(1, block[g].hi, 64);
            _tile_loadd(2, block[g].lo, 64);
            _tile_zero(3);
            _tile_zero(4);
            _tile_dpbusd(3, 0, 1);
            _tile_dpbusd(4, 0, 2);
            _tile_stored(3, hi_sums, 64);
            _tile_stored(4, lo_sums, 64);
            const __m512 d = _mm512_load_ps(block[g].d), d_sum = _mm512_load_ps(block[g].d_sum);
            const float* scale = w.scale.data() + g * kAmxRows;
            const float* bias = w.bias.data() + g * kAmxRows;
            for (int r = 0; r < kAmxRows; ++r) {
                const __m512i sums = _mm512_add_epi32(_mm512_slli_epi32(_mm512_load_si512(hi_sums[r]), 8),
                                                      _mm512_load_si512(lo_sums[r]));
                acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums), _mm512_mul_ps(d, _mm512_set1_ps(scale[r])), acc[r]);
                acc[r] = _mm512_fmadd_ps(d_sum, _mm512_set1_ps(bias[r]), acc[r]);
            }
        }
        __m512 by_token[kAmxTokens];
        ChunkOps<Arch>::transpose(acc, by_token);
        const __mmask16 columns = __mmask16((1u << rows) - 1);
        for (int64_t t = 0; t < std::min(kAmxTokens, a.m - tb * kAmxTokens); ++t) {
            float* y = reinterpret_cast<float*>(reinterpret_cast<char*>(a.y) + (tb * kAmxTokens + t) * a.y_stride) + j0;
            _mm512_mask_storeu_ps(y, columns, by_token[t]);
        }
    }

    // Rows [j_begin, j_end) for all a.m tokens, from the converted activations.
    static void run(const MatmulArgs& a, const Group* groups, int64_t j_begin, int64_t j_end) {
        static const AmxTileConfig config = tile_config();
        _tile_loadconfig(&config);
        thread_local Rows w;
        for (int64_t j0 = j_begin; j0 < j_end; j0 += kAmxRows) {
            const int rows = int(std::min<int64_t>(kAmxRows, j_end - j0));
            w.unpack(a, j0, rows);
            for (int64_t tb = 0; tb * kAmxTokens < a.m; ++tb) tile_block(a, w, groups, tb, j0, rows);
        }
        _tile_release();
    }
};
#endif

}  // namespace
}  // namespace tessera::cpu::matmul_detail
