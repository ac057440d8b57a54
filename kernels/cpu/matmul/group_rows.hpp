// A block of weight rows of an integer type, unpacked over all of k for the
// integer paths of the several-token Q16 matmul (amx_gemm.hpp, vnni_gemm.hpp):
// the type's chunk bytes as its dots read them (unsigned, kOffset still in
// them), and per group and row its scale and its bias, min - kOffset * scale,
// as packed_gemm.hpp's dequantize_span has them, so that
//
//   sum_i w[i] x[i] = scale * sum_i q[i] x[i] + bias * sum_i x[i]   (per group).
// Internal linkage: see unpack.hpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/matmul/span.hpp"
#include "kernels/cpu/matmul/unpack.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

// Type T's group of values with one scale (16 or 32), or 0 where T has no
// integer unpack.
template <class T>
constexpr int64_t int_gemm_group() {
    if constexpr (HasUnpack<T>) {
        if constexpr (Unpack<T>::kInt) return Unpack<T>::kGroup;
    }
    return 0;
}

// Rows of one block: bytes[g][row][kGroup], scale[g][row], bias[g][row].
template <class Arch, class T, int kRows>
struct GroupRows {
    using Ops = UnpackOps<Arch>;
    using U = Unpack<T>;
    using Block = typename T::Block;
    static constexpr int64_t kGroup = U::kGroup;
    static constexpr int kGroupsPerSpan = int(kSpan / kGroup), kGroupsPerChunk = int(64 / kGroup);

    std::vector<uint8_t> bytes;
    std::vector<float> scale, bias;

    // Rows j0 .. j0 + rows - 1 (rows <= kRows; k a multiple of kSpan); the
    // rows past them zero (their sums are computed, not stored).
    void unpack(const MatmulArgs& a, int64_t j0, int rows) {
        const int64_t n_groups = a.k / kGroup;
        const auto size = [rows](auto& v, size_t n) { rows < kRows ? v.assign(n, {}) : v.resize(n); };
        size(bytes, size_t(n_groups * kRows * kGroup));
        size(scale, size_t(n_groups * kRows));
        size(bias, size_t(n_groups * kRows));
        for (int r = 0; r < rows; ++r) {
            const auto* row = reinterpret_cast<const Block*>(static_cast<const char*>(a.w) + (j0 + r) * a.w_stride);
            for (int64_t s = 0; s < a.k / kSpan; ++s) {
                const Block* span = row + s * (kSpan / T::block_elems);
                typename Ops::Acc span_scale, min = Ops::zero();
                span_scales<Ops, T, 1>(&span, &span_scale, &min);
                const auto span_bias =
                    Ops::fma(span_scale, Ops::set1(-float(U::kOffset)), U::kHasMin ? min : Ops::zero());
                alignas(64) float scales[16], biases[16];
                Ops::store(span_scale, scales);
                Ops::store(span_bias, biases);
                const int64_t g0 = s * kGroupsPerSpan;
                for (int g = 0; g < kGroupsPerSpan; ++g) {
                    scale[size_t((g0 + g) * kRows + r)] = scales[g];
                    bias[size_t((g0 + g) * kRows + r)] = biases[g];
                }
                for_chunks([&]<int C>() {  // chunk C: the span's groups from kGroupsPerChunk * C, in order
                    alignas(64) uint8_t q[64];
                    Ops::store_bytes(U::template chunk<Ops, C>(span), q);
                    for (int h = 0; h < kGroupsPerChunk; ++h)
                        std::memcpy(bytes.data() + ((g0 + kGroupsPerChunk * C + h) * kRows + r) * kGroup,
                                    q + kGroup * h, kGroup);
                });
            }
        }
    }
};

}  // namespace
}  // namespace tessera::cpu::matmul_detail
