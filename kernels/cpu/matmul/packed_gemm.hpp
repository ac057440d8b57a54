// The several-token path with unrounded activations (ActivationPrecision::Q16,
// m > 1): weights dequantized into packed panels, then an F32 GEMM with a
// register tile, the activations read as they are (no conversion, no work
// buffer). An integer type's whole spans are dequantized from its unpack
// (unpack.hpp: the chunks' bytes and the span's group scales and mins, as the
// dot products use them), the rest by the type's own dequantize.
//
// A panel is kPanelRows consecutive weight rows over kDepth values of k,
// stored k-major (panel[k][row]), so that one k step loads two vectors of
// rows and broadcasts one activation per token: a tile of 2 vectors x
// kTileTokens tokens keeps 16 accumulators in registers and needs 10 loads
// per 16 FMAs. run() takes k in ranges of kDepth; per range, it first copies
// each token's activations of the range into a buffer of its own (one
// memcpy a token), then packs each panel of its rows in turn and runs every
// tile over it. The panel (32 KiB with AVX-512) stays in L1 for all the
// tokens of the call, and the range's activations (kDepth floats a token)
// in L2 for all the panels. Read in place instead, every panel read all the
// activations again from L3 at the rows' strides (docs/cpu-matmul.md has
// what that cost). A thread's rows are its own, so threads share nothing.
// Internal linkage: see unpack.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>
#include <xsimd/xsimd.hpp>

#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/matmul/span.hpp"
#include "kernels/simd/archs.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

// Float vectors of the arch (xsimd), or plain arrays for the scalar fallback.
template <class Arch>
struct F32Lanes {
    using V = xsimd::batch<float, Arch>;
    static constexpr int W = int(V::size);
    static V zero() { return V(0.0f); }
    static V load(const float* p) { return V::load_aligned(p); }
    static V loadu(const float* p) { return V::load_unaligned(p); }
    static void storeu(const V& v, float* p) { v.store_unaligned(p); }
    static V fma(const V& a, float b, const V& c) { return xsimd::fma(a, V(b), c); }
    static V add(const V& a, const V& b) { return a + b; }
};

template <>
struct F32Lanes<simd::Scalar> {
    static constexpr int W = 8;
    struct V {
        float v[W];
    };
    static V zero() { return {}; }
    static V load(const float* p) { return loadu(p); }
    static V loadu(const float* p) {
        V r;
        std::copy(p, p + W, r.v);
        return r;
    }
    static void storeu(const V& v, float* p) { std::copy(v.v, v.v + W, p); }
    static V fma(const V& a, float b, V c) {
        for (int l = 0; l < W; ++l) c.v[l] += a.v[l] * b;
        return c;
    }
    static V add(V a, const V& b) {
        for (int l = 0; l < W; ++l) a.v[l] += b.v[l];
        return a;
    }
};

// The kSpan values of the span at `blocks` of an integer type (value =
// scale * (q - kOffset) + min of its group), as the type's dequantize gives
// them up to one rounding: q * scale + (min - kOffset * scale) in one FMA.
template <class Arch, class T>
void dequantize_span(const typename T::Block* blocks, float* out) {
    using U = Unpack<T>;
    using Ops = UnpackOps<Arch>;
    typename Ops::Acc scale, min = Ops::zero();
    span_scales<Ops, T, 1>(&blocks, &scale, &min);
    const auto bias = Ops::fma(scale, Ops::set1(-float(U::kOffset)), U::kHasMin ? min : Ops::zero());
    for_chunks([&]<int C>() {
        const auto q = U::template chunk<Ops, C>(blocks);
        [&]<int... Q>(std::integer_sequence<int, Q...>) {
            ((Ops::store(Ops::template values<Q>(q, Ops::template broadcast<(64 * C + 16 * Q) / U::kGroup>(scale),
                                                 Ops::template broadcast<(64 * C + 16 * Q) / U::kGroup>(bias)),
                         out + 64 * C + 16 * Q)),
             ...);
        }(std::make_integer_sequence<int, 4>{});
    });
}

template <class Arch, class T>
struct PackedGemm {
    using L = F32Lanes<Arch>;
    using V = typename L::V;
    using Block = typename T::Block;
    static constexpr int kPanelRows = 2 * L::W;
    static constexpr int kTileTokens = 8;
    static constexpr int64_t kDepth = 256;  // a multiple of every type's block
    static_assert(kDepth % T::block_elems == 0);

    struct Panel {
        alignas(64) float w[kDepth][kPanelRows];
    };

    // Values [k0, k0 + depth) of a weight row.
    static void dequantize_row(const Block* row, int64_t k0, int64_t depth, float* values) {
        if constexpr (Unpack<T>::kInt) {
            static_assert(kDepth == kSpan);
            if (depth == kDepth) return dequantize_span<Arch, T>(row + k0 / T::block_elems, values);
        } else if (depth % 16 == 0) {  // a float type: 16 values at a time, by the arch's conversion
            using Ops = ChunkOps<Arch>;
            for (int64_t i = 0; i < depth; i += 16) Ops::store(Ops::widen(row + k0 + i), values + i);
            return;
        }
        for (int64_t b = 0; b < depth / int64_t(T::block_elems); ++b)
            T::dequantize(row[k0 / T::block_elems + b], values + b * T::block_elems);
    }

    // Asks for the weights row r of the next panel will read (the same
    // values of k, kPanelRows rows on: run() packs the panels of one range
    // of k in turn): a panel's rows are many short strided reads, which the
    // hardware prefetcher does not follow, so unprefetched they wait on DRAM.
    // Always inlined: GCC takes a function of nothing but prefetches for one
    // without effects and drops the calls to it.
    [[gnu::always_inline]] static void prefetch_next(const MatmulArgs& a, int64_t j0, int r, int64_t k0) {
        const int64_t row = j0 + kPanelRows + r;
        if (row >= a.n) return;
        const auto* blocks = reinterpret_cast<const Block*>(static_cast<const char*>(a.w) + row * a.w_stride);
        // Whole spans even where the row ends sooner (a prefetch does not fault).
        for (int64_t s = 0; s < kDepth; s += Span<T>::kValues) Span<T>::prefetch(blocks + (k0 + s) / T::block_elems, 0);
    }

    // Values [k0, k0 + depth) of panel row r (weight row j0 + r; zeros from `rows` on).
    static void panel_row(const MatmulArgs& a, int64_t j0, int rows, int r, int64_t k0, int64_t depth, float* values) {
        if (r < rows) {
            prefetch_next(a, j0, r, k0);
            dequantize_row(reinterpret_cast<const Block*>(static_cast<const char*>(a.w) + (j0 + r) * a.w_stride), k0,
                           depth, values);
        } else {
            std::fill(values, values + depth, 0.0f);
        }
    }

    // Rows [j0, j0 + rows) over k values [k0, k0 + depth) into the panel
    // (rows past `rows` are zero): 16 rows at a time, transposed in blocks of
    // 16 x 16 where the panel's rows are a multiple of 16 (a store per value
    // was most of the packing, which short prompts pay for every weight).
    static void pack(const MatmulArgs& a, int64_t j0, int rows, int64_t k0, int64_t depth, Panel& p) {
        if constexpr (kPanelRows % 16 == 0) {
            using Ops = ChunkOps<Arch>;
            alignas(64) float values[16][kDepth];
            for (int r0 = 0; r0 < kPanelRows; r0 += 16) {
                for (int r = 0; r < 16; ++r) panel_row(a, j0, rows, r0 + r, k0, depth, values[r]);
                int64_t k = 0;
                for (; k + 16 <= depth; k += 16) {
                    typename Ops::Acc in[16], out[16];
                    for (int r = 0; r < 16; ++r) in[r] = Ops::load(values[r] + k);
                    Ops::transpose(in, out);
                    for (int i = 0; i < 16; ++i) Ops::store(out[i], p.w[k + i] + r0);
                }
                for (; k < depth; ++k)
                    for (int r = 0; r < 16; ++r) p.w[k][r0 + r] = values[r][k];
            }
        } else {
            alignas(64) float values[kDepth];
            for (int r = 0; r < kPanelRows; ++r) {
                panel_row(a, j0, rows, r, k0, depth, values);
                for (int64_t k = 0; k < depth; ++k) p.w[k][r] = values[k];
            }
        }
    }

    // The activations of k values [k0, k0 + depth), each token's kDepth
    // values in a row (one copy per token), so that they stay in L2 for
    // every panel of the range.
    static const float* pack_x(const MatmulArgs& a, int64_t k0, int64_t depth) {
        thread_local std::vector<float> xs;
        xs.resize(size_t(a.m * kDepth));
        for (int64_t t = 0; t < a.m; ++t) {
            const float* x = reinterpret_cast<const float*>(reinterpret_cast<const char*>(a.x) + t * a.x_stride) + k0;
            std::copy(x, x + depth, xs.data() + t * kDepth);
        }
        return xs.data();
    }

    // y[t][j0 ..] (+)= the panel's rows times tokens t0 .. t0 + TT - 1 over depth values.
    template <int TT>
    static void tile(const MatmulArgs& a, const Panel& p, const float* xs, int64_t depth, int64_t t0, int64_t j0,
                     int rows, bool accumulate) {
        const float* x[TT];
        for (int t = 0; t < TT; ++t) x[t] = xs + (t0 + t) * kDepth;
        // The outputs this tile adds to, asked for now, a tile's work before
        // they are read: each is a token's row of its own, far from the last.
        if (accumulate)
            for (int t = 0; t < TT; ++t) {
                const char* y = reinterpret_cast<const char*>(a.y) + (t0 + t) * a.y_stride + j0 * sizeof(float);
                for (int h = 0; h < kPanelRows * int(sizeof(float)); h += 64) __builtin_prefetch(y + h, 1);
            }
        V acc[TT][2];
        for (auto& pair : acc) pair[0] = pair[1] = L::zero();
        for (int64_t k = 0; k < depth; ++k) {
            const V w0 = L::load(p.w[k]), w1 = L::load(p.w[k] + L::W);
            for (int t = 0; t < TT; ++t) {
                acc[t][0] = L::fma(w0, x[t][k], acc[t][0]);
                acc[t][1] = L::fma(w1, x[t][k], acc[t][1]);
            }
        }
        for (int t = 0; t < TT; ++t) {
            float* y = reinterpret_cast<float*>(reinterpret_cast<char*>(a.y) + (t0 + t) * a.y_stride) + j0;
            if (rows == kPanelRows) {
                for (int h = 0; h < 2; ++h)
                    L::storeu(accumulate ? L::add(acc[t][h], L::loadu(y + h * L::W)) : acc[t][h], y + h * L::W);
            } else {
                alignas(64) float out[kPanelRows];
                L::storeu(acc[t][0], out);
                L::storeu(acc[t][1], out + L::W);
                for (int r = 0; r < rows; ++r) y[r] = accumulate ? y[r] + out[r] : out[r];
            }
        }
    }

    // Rows [j_begin, j_end) for all a.m tokens.
    static void run(const MatmulArgs& a, int64_t j_begin, int64_t j_end) {
        alignas(64) Panel panel;
        for (int64_t k0 = 0; k0 < a.k; k0 += kDepth) {
            const int64_t depth = std::min(kDepth, a.k - k0);
            const float* xs = pack_x(a, k0, depth);
            for (int64_t j0 = j_begin; j0 < j_end; j0 += kPanelRows) {
                const int rows = int(std::min<int64_t>(kPanelRows, j_end - j0));
                pack(a, j0, rows, k0, depth, panel);
                int64_t t0 = 0;
                for (; t0 + kTileTokens <= a.m; t0 += kTileTokens)
                    tile<kTileTokens>(a, panel, xs, depth, t0, j0, rows, k0 > 0);
                // The last a.m - t0 < kTileTokens tokens: a tile of that many.
                [&]<int... I>(std::integer_sequence<int, I...>) {
                    ((a.m - t0 == I + 1 ? tile<I + 1>(a, panel, xs, depth, t0, j0, rows, k0 > 0) : void()), ...);
                }(std::make_integer_sequence<int, kTileTokens - 1>{});
            }
        }
    }
};

}  // namespace
}  // namespace tessera::cpu::matmul_detail
