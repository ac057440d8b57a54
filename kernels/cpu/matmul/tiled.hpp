// The matmul path of the driver (several tokens): a thread walks its weight
// rows kRows at a time, unpacks a segment of kSegment values of those rows
// into an L1-resident buffer, and dots that segment with every token of a
// tile of kTokenTile tokens, so each unpacked weight is used kTokenTile times
// while the tile's activations stay in L2. Internal linkage: see unpack.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/matmul/activations.hpp"
#include "kernels/cpu/matmul/chunk_ops.hpp"
#include "kernels/cpu/matmul/span.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

inline constexpr int kRows = 4;            // weight rows unpacked and dotted together
inline constexpr int64_t kSegment = 1024;  // values per unpacked row segment
inline constexpr int64_t kTokenTile = 64;  // tokens sharing one unpacked segment

template <class Arch, class T, ActivationPrecision A>
struct Tiled {
    using U = Unpack<T>;
    using Ops = UnpackOps<Arch>;
    using Acc = typename Ops::Acc;
    using Layout = ActivationLayout<T, A>;
    using Block = typename T::Block;
    using S = Span<T>;
    static constexpr int64_t kSpans = kSegment / S::kValues;
    static_assert(kSegment % S::kValues == 0);

    // kRows unpacked row segments: q, the weight scale of each 4 values, per span 16 mins.
    struct IntSegment {
        alignas(64) uint8_t q[kRows][kSegment];
        alignas(64) float scale[kRows][kSegment / 4];
        alignas(64) float min[kRows][kSpans][16];
    };
    struct FloatSegment {
        alignas(64) float w[kRows][kSegment];
    };
    using Segment = std::conditional_t<U::kInt, IntSegment, FloatSegment>;

    // Unpacks spans [s0, s0 + spans) of one row into segment row r; prefetches
    // the same spans `ahead` bytes further on unless ahead is 0.
    static void unpack(const Block* row, int64_t row_blocks, int64_t s0, int64_t spans, size_t ahead, Segment& seg,
                       int r) {
        S span;
        for (int64_t s = 0; s < spans; ++s) {
            const Block* b = span.blocks(row, s0 + s, row_blocks);
            if (ahead != 0) S::prefetch(row + (s0 + s) * S::kBlocks, ahead);
            if constexpr (U::kInt) {
                constexpr int G = U::kGroup;
                Acc groups, min;
                U::template scales<Ops>(b, groups, min);
                groups = Ops::template chunk_lanes<G>(groups);
                for_chunks([&]<int C>() {
                    const int64_t c = s * kSpan + 64 * C;
                    Ops::store_bytes(U::template chunk<Ops, C>(b), seg.q[r] + c);
                    Ops::store(Ops::template spread<C>(groups), seg.scale[r] + c / 4);
                });
                if constexpr (U::kHasMin) Ops::store(min, seg.min[r][s]);
            } else {
                for (int c = 0; c < S::kChunks; ++c) Ops::store(Ops::widen(b + 16 * c), seg.w[r] + s * kFloatSpan + 16 * c);
            }
        }
    }

    // out[r] = dot of segment rows r0 .. r0 + R - 1 (spans [s0, s0 + spans)) with one activation row.
    template <int R>
    static void dot(const Layout& layout, uint8_t* act, int64_t s0, int64_t spans, const Segment& seg, int r0,
                    float* out) {
        Acc acc[R];
        for (auto& a : acc) a = Ops::zero();
        for (int64_t s = 0; s < spans; ++s) {
            if constexpr (U::kInt) {
                for (int64_t c = s * kSpan; c < (s + 1) * kSpan; c += 64) {
                    const int64_t at = s0 * kSpan + c;
                    const Acc ascale = Ops::load(layout.scale(act) + at / 4);
                    for (int r = 0; r < R; ++r)
                        acc[r] = Ops::fma_int(layout.template dot<Ops>(act, at, Ops::load_bytes(seg.q[r0 + r] + c)),
                                              Ops::mul(Ops::load(seg.scale[r0 + r] + c / 4), ascale), acc[r]);
                }
                if constexpr (U::kHasMin) {
                    const Acc amin = Ops::load(layout.amin(act) + (s0 + s) * (kSpan / U::kGroup));
                    for (int r = 0; r < R; ++r) acc[r] = Ops::fma(Ops::load(seg.min[r0 + r][s]), amin, acc[r]);
                }
            } else {
                const float* a = layout.values(act) + (s0 + s) * kFloatSpan;
                for (int c = 0; c < kFloatSpan; c += 16)
                    for (int r = 0; r < R; ++r)
                        acc[r] = Ops::fma(Ops::load(seg.w[r0 + r] + s * kFloatSpan + c), Ops::load(a + c), acc[r]);
            }
        }
        for (int r = 0; r < R; ++r) out[r] = Ops::sum(acc[r]);
    }

    // Rows [j_begin, j_end) for all m tokens.
    static void run(const Layout& layout, const MatmulArgs& args, uint8_t* act, int64_t j_begin, int64_t j_end) {
        const int64_t row_blocks = args.k / T::block_elems, total_spans = layout.padded / S::kValues;
        alignas(64) Segment seg;
        for (int64_t i0 = 0; i0 < args.m; i0 += kTokenTile) {
            const int64_t i1 = std::min(args.m, i0 + kTokenTile);
            for (int64_t j = j_begin; j < j_end; j += kRows) {
                const int rows = int(std::min<int64_t>(kRows, j_end - j));
                for (int64_t s0 = 0; s0 < total_spans; s0 += kSpans) {
                    const int64_t spans = std::min(kSpans, total_spans - s0);
                    for (int r = 0; r < rows; ++r) {
                        const auto* row = reinterpret_cast<const Block*>(static_cast<const char*>(args.w) +
                                                                         (j + r) * args.w_stride);
                        const size_t ahead = j + r + kRows < j_end ? kRows * args.w_stride : 0;
                        unpack(row, row_blocks, s0, spans, ahead, seg, r);
                    }
                    for (int64_t i = i0; i < i1; ++i) {
                        float partial[kRows];
                        uint8_t* act_row = act + i * layout.row_bytes;
                        if (rows == kRows) {
                            dot<kRows>(layout, act_row, s0, spans, seg, 0, partial);
                        } else {
                            for (int r = 0; r < rows; ++r) dot<1>(layout, act_row, s0, spans, seg, r, partial + r);
                        }
                        float* y = reinterpret_cast<float*>(reinterpret_cast<char*>(args.y) + i * args.y_stride) + j;
                        for (int r = 0; r < rows; ++r) y[r] = (s0 == 0 ? 0.0f : y[r]) + partial[r];
                    }
                }
            }
        }
    }
};

}  // namespace
}  // namespace tessera::cpu::matmul_detail
