// TQ1_0: ternary blocks of 256 values (BitNet b1.58-style weights), one fp16
// scale d and a trit t in 0..2 per value; value = d * (t - 1). The trits are
// base-3 digits, five per byte of qs and four per byte of qh (whose fifth
// digit is 0). A byte with digits t0..t4, t0 the most significant, stores
// their base-3 number n as the fraction n / 243 in 8 bits, rounded up:
// ceil(256 n / 243). Multiplying the byte by 3 (modulo 256) drops the top
// digit and moves the next one up, so digit k is (byte * 3^k mod 256) * 3 / 256.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernels/quant/half.hpp"
#include "kernels/quant/quant_type.hpp"
#include "kernels/quant/types/q8_k.hpp"

namespace tessera {

struct TQ1_0 {
    static constexpr GgmlType id = GgmlType::TQ1_0;
    static constexpr std::string_view name = "TQ1_0";
    static constexpr size_t block_elems = 256;
    static constexpr bool quantizer_matches_ggml = true;
    static constexpr uint32_t llama_file_type = 36;  // LLAMA_FTYPE_MOSTLY_TQ1_0
    struct Block {
        uint8_t qs[48];  // 5 trits per byte
        uint8_t qh[4];   // 4 trits per byte (the fifth digit is 0)
        uint16_t d;      // fp16
    };
    using DotType = Q8_K;

    // The values come in runs: value first + j of a run is digit `digit` of
    // byte `byte` + j of the block (qs[0..47], then qh at 48..51). The first
    // 160 values are the digits of qs[0..31], digit by digit, the next 80 those
    // of qs[32..47], the last 16 those of qh.
    struct Run {
        int first, byte, count, digit;
    };
    static constexpr std::array<Run, 14> kRuns = [] {
        std::array<Run, 14> runs{};
        int r = 0, first = 0;
        for (int digit = 0; digit < 5; ++digit, first += 32) runs[r++] = {first, 0, 32, digit};
        for (int digit = 0; digit < 5; ++digit, first += 16) runs[r++] = {first, 32, 16, digit};
        for (int digit = 0; digit < 4; ++digit, first += 4) runs[r++] = {first, 48, 4, digit};
        return runs;
    }();
    static constexpr std::array<uint8_t, 5> kPow3 = {1, 3, 9, 27, 81};

    static int trit(uint8_t byte, int digit) { return uint8_t(byte * kPow3[digit]) * 3 >> 8; }
    static const uint8_t* bytes(const Block& b) { return reinterpret_cast<const uint8_t*>(&b); }

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d);
        for (const Run& run : kRuns)
            for (int j = 0; j < run.count; ++j)
                out[run.first + j] = float(trit(bytes(b)[run.byte + j], run.digit) - 1) * d;
    }

    // ggml's reference quantizer: d = max|x|, t = round-half-away(x / d) + 1.
    static void quantize(const float* in, Block& b) {
        float amax = 0.0f;
        for (int i = 0; i < 256; ++i) amax = std::max(amax, std::fabs(in[i]));
        // 0 when amax is 0 or so small (float-subnormal inputs) that 1/amax overflows.
        const float inv_d = std::isfinite(1.0f / amax) ? 1.0f / amax : 0.0f;
        b.d = fp32_to_fp16(amax);
        std::array<int, 52> number{};  // per byte, its digits as a base-3 number (at most 242)
        for (const Run& run : kRuns)
            for (int j = 0; j < run.count; ++j)
                number[run.byte + j] += int(std::lround(in[run.first + j] * inv_d) + 1) * kPow3[4 - run.digit];
        auto* out = reinterpret_cast<uint8_t*>(&b);
        for (int k = 0; k < 52; ++k) out[k] = uint8_t((number[k] * 256 + 242) / 243);
    }

    static float dot(const Block* w, const Q8_K::Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t n = 0; n < nblocks; ++n) {
            int32_t isum = 0;
            for (const Run& run : kRuns)
                for (int j = 0; j < run.count; ++j)
                    isum += (trit(bytes(w[n])[run.byte + j], run.digit) - 1) * int32_t(a[n].qs[run.first + j]);
            sum += float(isum) * (fp16_to_fp32(w[n].d) * a[n].d);
        }
        return sum;
    }

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp): the trits with
    // kOffset 1, every group scaled by d. Chunk boundaries fall between runs;
    // a chunk's runs are decoded in plain C++ (loops of a fixed count and
    // digit over a local array, which the compiler vectorizes) and loaded as
    // one vector.
    struct CpuUnpack {
        static constexpr int kGroup = 32, kOffset = 1;
        static constexpr bool kHasMin = false;
        static_assert(std::ranges::none_of(kRuns, [](const Run& r) { return r.first % 64 + r.count > 64; }),
                      "a run crosses a chunk boundary");
        template <class Ops, int C>
        static auto chunk(const Block* span) {
            alignas(64) uint8_t q[64];
            decode_runs<Ops, C>(bytes(*span), q, std::make_index_sequence<kRuns.size()>{});
            return Ops::load_bytes(q);
        }
        // The trits of those runs R that lie in chunk C into q, the chunk's
        // bytes. (Ops, unused here, keeps each arch's copy apart: unpack.hpp.)
        template <class Ops, int C, size_t... R>
        static void decode_runs(const uint8_t* block, uint8_t* q, std::index_sequence<R...>) {
            (decode_run<Ops, C, kRuns[R]>(block, q), ...);
        }
        template <class Ops, int C, Run kRun>
        static void decode_run(const uint8_t* block, uint8_t* q) {
            if constexpr (kRun.first / 64 == C)
                for (int j = 0; j < kRun.count; ++j)
                    q[kRun.first % 64 + j] = uint8_t(trit(block[kRun.byte + j], kRun.digit));
        }
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
            scale = Ops::set1(Ops::half(span->d));
        }
    };
};
static_assert(QuantType<TQ1_0> && matches_format<TQ1_0>());
static_assert(offsetof(TQ1_0::Block, qh) == 48);

}  // namespace tessera
