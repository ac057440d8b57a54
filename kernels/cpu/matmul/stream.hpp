// The matvec path of the driver (one token): R weight rows are read once,
// span by span, and unpacked straight into registers. Per 64-value chunk and
// row: the type's unpack, one dpbusd (the weight offset enters through the
// activations' bias), a convert and an FMA with the chunk's lane scales
// (weight group scale times activation scale, multiplied and arranged by
// chunk_lanes once per span, picked by an in-lane spread per chunk). Types
// with lane-stable chunks instead add a class of chunks' dots up as integers
// and scale them once per span (stable_lanes.hpp).
// Internal linkage: see unpack.hpp.
#pragma once

#include <cstdint>

#include "kernels/cpu/matmul/activations.hpp"
#include "kernels/cpu/matmul/chunk_ops.hpp"
#include "kernels/cpu/matmul/span.hpp"
#include "kernels/cpu/matmul/stable_lanes.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

// How far ahead of the current span each row stream is prefetched: a fixed
// distance, not one row, the best of those measured
// (docs/measured-choices.md#matvec-prefetch-distance).
inline constexpr size_t kPrefetchBytes = 1536;

template <class Arch, class T, ActivationPrecision A>
struct Stream {
    using U = Unpack<T>;
    using Ops = UnpackOps<Arch>;
    using Acc = typename Ops::Acc;
    using Layout = ActivationLayout<T, A>;
    using Block = typename T::Block;
    using S = Span<T>;

    // acc[r] += the dot of span s of row r (blocks b[r]) with the activation
    // row; prefetches `ahead` bytes further on unless ahead is 0.
    template <int R>
    [[gnu::always_inline]] static void span(const Layout& layout, uint8_t* act, int64_t s, const Block* const* b,
                                            size_t ahead, Acc* acc) {
        if (ahead != 0)
            for (int r = 0; r < R; ++r) S::prefetch(b[r], ahead);
        if constexpr (U::kInt) {
            constexpr int G = U::kGroup;
            const int64_t g0 = s * (kSpan / G);
            const Acc gscale = Ops::load(layout.gscale(act) + g0);
            Acc lane[R], min[R];
            span_scales<Ops, T, R>(b, lane, min);
            for (int r = 0; r < R; ++r) lane[r] = Ops::mul(lane[r], gscale);
            if constexpr (HasStableChunks<T>) {
                stable_dots<R>(layout, act, s, b, lane, acc);
            } else {
                for (int r = 0; r < R; ++r) lane[r] = Ops::template chunk_lanes<G>(lane[r]);
                for_chunks([&]<int C>() {
                    for (int r = 0; r < R; ++r)
                        acc[r] = Ops::fma_int(
                            layout.template dot<Ops>(act, s * kSpan + 64 * C, U::template chunk<Ops, C>(b[r])),
                            Ops::template spread<C>(lane[r]), acc[r]);
                });
            }
            if constexpr (U::kHasMin) {
                const Acc amin = Ops::load(layout.amin(act) + g0);
                for (int r = 0; r < R; ++r) acc[r] = Ops::fma(min[r], amin, acc[r]);
            }
        } else {
            const float* a = layout.values(act) + s * kFloatSpan;
            for (int c = 0; c < S::kChunks; ++c)
                for (int r = 0; r < R; ++r) acc[r] = Ops::fma(Ops::widen(b[r] + 16 * c), Ops::load(a + 16 * c), acc[r]);
        }
    }

    // acc[r] += the dot of span s of row r with the activation row in stable
    // order (stable_lanes.hpp), `groups` the span's group scales of each row.
    template <int R>
    [[gnu::always_inline]] static void stable_dots(const Layout& layout, uint8_t* act, int64_t s, const Block* const* b,
                                                   const Acc* groups, Acc* acc) {
        using L = StableLanes<T>;
        using Ints = typename Ops::Ints;
        Ints sums[4][R][Layout::kSums];  // by the first chunk of each class
        for_chunks([&]<int C>() {
            constexpr int K = L::first_of_class(C);
            for (int r = 0; r < R; ++r) {
                const auto q = U::template stable_chunk<Ops, C>(b[r]);
                if constexpr (K == C)
                    layout.template dot_start<Ops>(act, s * kSpan + 64 * C, q, sums[C][r]);
                else
                    layout.template dot_acc<Ops>(act, s * kSpan + 64 * C, q, sums[K][r]);
            }
            if constexpr (L::last_of_class(C) == C)  // the class is complete: its scales, once
                for (int r = 0; r < R; ++r)
                    acc[r] = Ops::fma_int(Layout::template total<Ops>(sums[K][r]),
                                          Ops::template permute<L::lane_groups(C)>(groups[r]), acc[r]);
        });
    }

    // y[r * y_stride] = dot(row r, the activation row), rows at w + r * stride,
    // r < R. Each row is prefetched `ahead` bytes past the span being read
    // (past its end: the start of the row the next call reads).
    template <int R>
    static void rows(const Layout& layout, uint8_t* act, const char* w, size_t stride, size_t ahead, float* y,
                     int64_t y_stride) {
        const int64_t row_blocks = layout.k / T::block_elems, spans = layout.padded / S::kValues;
        const Block* row[R];
        for (int r = 0; r < R; ++r) row[r] = reinterpret_cast<const Block*>(w + r * stride);
        Acc acc[R];
        for (auto& a : acc) a = Ops::zero();
        // Whole spans in place, then a padded copy of a partial last span
        // (kept out of the main loop, whose accumulators then stay in registers).
        const int64_t whole = S::whole(row_blocks);
        const Block* b[R];
        for (int64_t s = 0; s < whole; ++s) {
            for (int r = 0; r < R; ++r) b[r] = row[r] + s * S::kBlocks;
            span<R>(layout, act, s, b, ahead, acc);
        }
        if (whole < spans) {
            S tail[R];
            for (int r = 0; r < R; ++r) b[r] = tail[r].padded(row[r], whole, row_blocks);
            span<R>(layout, act, whole, b, 0, acc);
        }
        for (int r = 0; r < R; ++r) y[r * y_stride] = Ops::sum(acc[r]);
    }
};

}  // namespace
}  // namespace tessera::cpu::matmul_detail
