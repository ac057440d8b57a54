// The one matmul driver for every weight type and arch. After the team has
// converted the activations (activations.hpp), each thread takes a range of
// weight rows; for each tile of tokens it walks its rows kRows at a time,
// unpacks a segment of kSegment values of those rows into an L1-resident
// buffer (the type's Unpack), and dots that segment with every token of the
// tile (ChunkOps), so each unpacked weight is used kTokenTile times while the
// tile's activations stay in L2. With one token this is a streaming matvec.
// Internal linkage: see unpack.hpp.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/matmul/activations.hpp"
#include "kernels/cpu/matmul/chunk_ops.hpp"
#include "kernels/cpu/matmul/unpack.hpp"
#include "tessera/enabled_quant_types.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

inline constexpr int kRows = 4;               // weight rows unpacked and dotted together
inline constexpr int64_t kSegment = 1024;     // values per unpacked row segment
inline constexpr int64_t kTokenTile = 64;     // tokens sharing one unpacked segment

template <class Arch, class T>
struct Driver {
    using U = Unpack<T>;
    using Ops = ChunkOps<Arch>;
    using Acc = typename Ops::Acc;
    using Layout = ActivationLayout<T>;
    static constexpr int64_t E = T::block_elems;
    static_assert(kSegment % E == 0 && kSegment % 64 == 0);

    // kRows unpacked row segments.
    struct IntSegment {
        static constexpr int64_t kGroups = U::kHasMin ? kSegment / U::kGroup : 0;
        static_assert(kGroups % 16 == 0);
        alignas(64) uint8_t q[kRows][kSegment];
        alignas(64) float scale[kRows][kSegment / 4];
        alignas(64) float min[kRows][kGroups];
    };
    struct FloatSegment {
        alignas(64) float w[kRows][kSegment];
    };
    using Segment = std::conditional_t<U::kInt, IntSegment, FloatSegment>;

    // Unpacks `len` values of one row (blocks from `blocks`), zero padding to whole chunks.
    static void unpack(const typename T::Block* blocks, int64_t len, Segment& seg, int r) {
        if constexpr (U::kInt) {
            constexpr int G = U::kGroup;
            float scale[E / G], min[E / G];
            for (int64_t b = 0; b < len / E; ++b) {
                U::template unpack<Ops>(blocks[b], seg.q[r] + b * E, scale, min);
                for (int g = 0; g < E / G; ++g) {
                    std::fill_n(seg.scale[r] + (b * E + g * G) / 4, G / 4, scale[g]);
                    if constexpr (U::kHasMin) seg.min[r][b * E / G + g] = min[g];
                }
            }
            const int64_t padded = round_up(len, 64);
            std::fill(seg.q[r] + len, seg.q[r] + padded, uint8_t(0));
            std::fill(seg.scale[r] + len / 4, seg.scale[r] + padded / 4, 0.0f);
            if constexpr (U::kHasMin) std::fill(seg.min[r] + len / G, seg.min[r] + round_up(len / G, 16), 0.0f);
        } else {
            Ops::widen(blocks, seg.w[r], len);
            std::fill(seg.w[r] + len, seg.w[r] + round_up(len, 16), 0.0f);
        }
    }

    // Asks for the same segment of the row kRows further on: the one this
    // unpack buffer row takes next (the hardware prefetchers lose track of
    // kRows interleaved streams at DRAM latency).
    static void prefetch_next(const typename T::Block* blocks, int64_t len, size_t w_stride, bool exists) {
        if (!exists) return;
        const char* next = reinterpret_cast<const char*>(blocks) + kRows * w_stride;
        const size_t bytes = size_t(len / E) * sizeof(typename T::Block);
        for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch(next + b);
    }

    // out[r] = dot of segment rows 0..R-1 with values [k0, k0 + len) of one activation row.
    template <int R>
    static void dot(const Layout& layout, uint8_t* act, int64_t k0, int64_t len, const Segment& seg, int r0,
                    float* out) {
        Acc acc[R];
        for (int r = 0; r < R; ++r) acc[r] = Ops::zero();
        if constexpr (U::kInt) {
            const int8_t* a = layout.a(act) + k0;
            const int32_t* bias = layout.bias(act) + k0 / 4;
            const float* ascale = layout.scale(act) + k0 / 4;
            for (int64_t c = 0; c < len; c += 64)
                for (int r = 0; r < R; ++r)
                    Ops::int_chunk(acc[r], a + c, bias + c / 4, ascale + c / 4, seg.q[r0 + r] + c,
                                   seg.scale[r0 + r] + c / 4);
            if constexpr (U::kHasMin) {
                const int64_t g0 = k0 / U::kGroup, groups = len / U::kGroup;
                const float* amin = layout.amin(act) + g0;
                for (int64_t g = 0; g < groups; g += 16)
                    for (int r = 0; r < R; ++r) Ops::float_chunk(acc[r], amin + g, seg.min[r0 + r] + g);
            }
        } else {
            const float* a = layout.values(act) + k0;
            for (int64_t c = 0; c < len; c += 16)
                for (int r = 0; r < R; ++r) Ops::float_chunk(acc[r], a + c, seg.w[r0 + r] + c);
        }
        for (int r = 0; r < R; ++r) out[r] = Ops::sum(acc[r]);
    }

    static void run(const MatmulArgs& args, void* work, const ThreadTeam& team) {
        const Layout layout(args.k);
        auto* act = static_cast<uint8_t*>(work);
        convert_activations(layout, args, act, team);
        team.barrier();

        const auto [j_begin, j_end] = team.split(args.n, kRows);
        alignas(64) Segment seg;
        for (int64_t i0 = 0; i0 < args.m; i0 += kTokenTile) {
            const int64_t i1 = std::min(args.m, i0 + kTokenTile);
            for (int64_t j = j_begin; j < j_end; j += kRows) {
                const int rows = int(std::min<int64_t>(kRows, j_end - j));
                for (int64_t k0 = 0; k0 < args.k; k0 += kSegment) {
                    const int64_t len = std::min(kSegment, args.k - k0);
                    for (int r = 0; r < rows; ++r) {
                        const auto* row = static_cast<const char*>(args.w) + (j + r) * args.w_stride;
                        const auto* blocks = reinterpret_cast<const typename T::Block*>(row) + k0 / E;
                        prefetch_next(blocks, len, args.w_stride, j + r + kRows < j_end);
                        unpack(blocks, len, seg, r);
                    }
                    for (int64_t i = i0; i < i1; ++i) {
                        float partial[kRows];
                        uint8_t* act_row = act + i * layout.row_bytes;
                        if (rows == kRows) {
                            dot<kRows>(layout, act_row, k0, len, seg, 0, partial);
                        } else {
                            for (int r = 0; r < rows; ++r) dot<1>(layout, act_row, k0, len, seg, r, partial + r);
                        }
                        float* y = reinterpret_cast<float*>(reinterpret_cast<char*>(args.y) + i * args.y_stride) + j;
                        for (int r = 0; r < rows; ++r) y[r] = (k0 == 0 ? 0.0f : y[r]) + partial[r];
                    }
                }
            }
        }
    }
};

}  // namespace
}  // namespace tessera::cpu::matmul_detail

namespace tessera::cpu::matmul_detail {
namespace {

// Runs the driver of the weight type a.weight_type; false when the build has none.
template <class Arch>
bool run_for_type(const MatmulArgs& a, void* work, const ThreadTeam& team) {
    bool found = false;
    EnabledQuantTypes::for_each([&]<class T>() {
        if constexpr (HasUnpack<T>) {
            if (T::id == a.weight_type) {
                Driver<Arch, T>::run(a, work, team);
                found = true;
            }
        }
    });
    return found;
}

}  // namespace
}  // namespace tessera::cpu::matmul_detail
