// The one matmul driver for every weight type and arch: the team converts the
// activations (activations.hpp; for one token each thread converts its own
// copy), then each thread takes a range of weight
// rows, streamed for one token (stream.hpp) or tiled for several (tiled.hpp);
// several tokens with 16-bit precision skip the conversion and run the F32
// GEMM on dequantized panels (packed_gemm.hpp), or, for the integer types,
// convert them for the integer paths: AMX tiles where the CPU has them and the
// groups are 32 values (amx_gemm.hpp), else AVX-512 VNNI where the arch has
// it (vnni_gemm.hpp, from kVnniMinTokens tokens).
// Internal linkage: see unpack.hpp.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/matmul/activations.hpp"
#include "kernels/cpu/matmul/amx_gemm.hpp"
#include "kernels/cpu/matmul/packed_gemm.hpp"
#include "kernels/cpu/matmul/stream.hpp"
#include "kernels/cpu/matmul/stream_spacing.hpp"
#include "kernels/cpu/matmul/tiled.hpp"
#include "kernels/cpu/matmul/vnni_gemm.hpp"
#include "tessera/enabled_quant_types.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

template <class Arch, class T, ActivationPrecision A>
void run(const MatmulArgs& args, void* work, const ThreadTeam& team) {
    if constexpr (A == ActivationPrecision::Q16) {
        if constexpr (amx_weight_type<T>() && std::is_base_of_v<xsimd::avx512f, Arch>) {
            if (amx_gemm_applies<T>(args.k, args.m)) {
                auto* groups = static_cast<AmxActivationGroup*>(work);
                AmxGemm<Arch, T>::convert(args, groups, team);
                team.barrier();
                const auto [j_begin, j_end] = team.split(args.n, kAmxRows);
                AmxGemm<Arch, T>::run(args, groups, j_begin, j_end);
                return;
            }
        }
        if constexpr (vnni_weight_type<T>() && simd::has_vnni<Arch>) {
            if (vnni_gemm_applies<T>(args.k, args.m)) {
                VnniGemm<Arch, T>::convert(args, work, team);
                team.barrier();
                const auto [j_begin, j_end] = team.split(args.n, kVnniRows);
                VnniGemm<Arch, T>::run(args, work, j_begin, j_end);
                return;
            }
        }
        if (args.m >= kQ16GemmMinTokens) {  // unrounded activations: no conversion, no barrier
            const auto [j_begin, j_end] = team.split(args.n, PackedGemm<Arch, T>::kPanelRows);
            PackedGemm<Arch, T>::run(args, j_begin, j_end);
            return;
        }
    }
    const ActivationLayout<T, A> layout(args.k);
    auto* act = static_cast<uint8_t*>(work);
    if (args.m == 1) {
        // One token: each thread converts the whole row into its own copy,
        // which costs less than waiting for the team at a barrier
        // (docs/measured-choices.md#one-tokens-activations-per-thread).
        act += size_t(team.ith) * layout.row_bytes;
        convert_span<Arch>(layout, args.x, 0, args.k, act);
        if constexpr (HasStableChunks<T>) StableLanes<T>::arrange(layout, act);  // in the order of the matvec's chunks
    } else {
        convert_activations<Arch>(layout, args, act, team);
        team.barrier();
    }

    const auto [j_begin, j_end] = team.split(args.n, kRows);
    if (args.m != 1) {
        Tiled<Arch, T, A>::run(layout, args, act, j_begin, j_end);
        return;
    }
    // The kRows rows of a step come from kRows quarters of this thread's rows,
    // each quarter read in order: one ascending stream per quarter, which the
    // hardware prefetcher follows. (Neighbouring rows, one step reading a
    // span of each in turn, stream more slowly:
    // docs/measured-choices.md#matvec-row-streams.) A quarter may leave a
    // few rows to the end, so that the streams are apart in the page (stream_rows).
    // Each stream is also prefetched kPrefetchBytes ahead, into the next row
    // where the row ends sooner.
    const auto* w = static_cast<const char*>(args.w);
    const size_t stride = args.w_stride;
    const int64_t quarter = stream_rows(j_end - j_begin, stride, kRows);
    for (int64_t i = 0; i < quarter; ++i) {
        const int64_t j = j_begin + i;
        Stream<Arch, T, A>::template rows<kRows>(layout, act, w + j * stride, quarter * stride, kPrefetchBytes,
                                                 args.y + j, quarter);
    }
    for (int64_t j = j_begin + kRows * quarter; j < j_end; ++j)
        Stream<Arch, T, A>::template rows<1>(layout, act, w + j * stride, stride, kPrefetchBytes, args.y + j, 1);
}

// Runs the driver of the weight type a.weight_type; false when the build has none.
template <class Arch>
bool run_for_type(const MatmulArgs& a, void* work, const ThreadTeam& team) {
    bool found = false;
    EnabledQuantTypes::for_each([&]<class T>() {
        if constexpr (HasUnpack<T>) {
            if (T::id == a.weight_type) {
                if (a.activations == ActivationPrecision::Q16)
                    run<Arch, T, ActivationPrecision::Q16>(a, work, team);
                else
                    run<Arch, T, ActivationPrecision::Q8>(a, work, team);
                found = true;
            }
        }
    });
    return found;
}

}  // namespace
}  // namespace tessera::cpu::matmul_detail
