// IQ4_NL: blocks of 32 values, one fp16 scale d and 32 4-bit indices into a
// fixed non-linear table (nibble order as Q4_0); value = d * kValues[index].
#pragma once

#include <array>
#include <cmath>
#include <cstddef>

#include "kernels/quant/half.hpp"
#include "kernels/quant/quant_type.hpp"
#include "kernels/quant/types/q8_0.hpp"

namespace tessera {

struct IQ4_NL {
    static constexpr GgmlType id = GgmlType::IQ4_NL;
    static constexpr std::string_view name = "IQ4_NL";
    static constexpr size_t block_elems = 32;
    // ggml's quantizer minimises an x^2-weighted error; this one minimises the
    // plain squared error, so the bytes differ but the RMSE is no worse.
    static constexpr bool quantizer_matches_ggml = false;
    static constexpr uint32_t llama_file_type = 25;  // LLAMA_FTYPE_MOSTLY_IQ4_NL
    struct Block {
        uint16_t d;  // fp16 scale
        uint8_t qs[16];
    };
    using DotType = Q8_0;

    static constexpr int8_t kValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                           1,    13,   25,  38,  53,  69,  89,  113};

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d);
        for (int j = 0; j < 16; ++j) {
            out[j] = d * float(kValues[b.qs[j] & 0xF]);
            out[j + 16] = d * float(kValues[b.qs[j] >> 4]);
        }
    }

    // Tries scales that put the block's extreme value near either end of the
    // table, refits each by least squares, and refines the best one.
    static void quantize(const float* in, Block& b) {
        float amax = 0.0f;
        float max = 0.0f;  // signed value of largest magnitude
        for (int j = 0; j < 32; ++j) {
            if (std::fabs(in[j]) > amax) {
                amax = std::fabs(in[j]);
                max = in[j];
            }
        }
        ScaleFit best{0.0f, -1.0f};
        if (amax > 1e-15f) {  // smaller blocks get a zero fp16 scale anyway
            for (const float table_end : {float(kValues[0]), float(kValues[15])}) {
                for (int step = -7; step <= 7; ++step) {
                    const ScaleFit fit = least_squares_scale(in, max / (table_end + float(step)));
                    if (fit.score > best.score) best = fit;
                }
            }
            // Reassign with the refitted scale while that lowers the error.
            for (int pass = 0; pass < 4; ++pass) {
                const ScaleFit fit = least_squares_scale(in, best.d);
                if (!(fit.score > best.score)) break;
                best = fit;
            }
        }
        b.d = fp32_to_fp16(best.d);
        // Assign indices for the scale actually stored.
        const float stored_d = fp16_to_fp32(b.d);
        const float inv_d = std::isfinite(1.0f / stored_d) ? 1.0f / stored_d : 0.0f;
        for (int j = 0; j < 16; ++j)
            b.qs[j] = uint8_t(nearest_index(in[j] * inv_d) | nearest_index(in[j + 16] * inv_d) << 4);
    }

    static float dot(const Block* w, const Q8_0::Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t i = 0; i < nblocks; ++i) {
            int32_t isum = 0;
            for (int j = 0; j < 16; ++j) {
                isum += int32_t(kValues[w[i].qs[j] & 0xF]) * int32_t(a[i].qs[j]);
                isum += int32_t(kValues[w[i].qs[j] >> 4]) * int32_t(a[i].qs[j + 16]);
            }
            sum += float(isum) * (fp16_to_fp32(w[i].d) * fp16_to_fp32(a[i].d));
        }
        return sum;
    }

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp): the levels + 128.
    struct CpuUnpack {
        static constexpr int kGroup = 32, kOffset = 128;
        static constexpr bool kHasMin = false;
        static constexpr std::array<uint8_t, 16> kLevels = [] {
            std::array<uint8_t, 16> t{};
            for (size_t i = 0; i < 16; ++i) t[i] = uint8_t(kValues[i] + 128);
            return t;
        }();
        template <class Ops, int C>
        static auto chunk(const Block* span) {
            return Ops::lookup(Ops::template nibble_chunk<C>(span), kLevels.data());
        }
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
            scale = Ops::template span_halves<offsetof(Block, d)>(span);
        }
    };

private:
    // Index of the table value nearest to v.
    static int nearest_index(float v) {
        if (!(v > kValues[0])) return 0;
        if (v >= kValues[15]) return 15;
        int lo = 0, hi = 15;  // kValues[lo] <= v < kValues[hi]
        while (hi - lo > 1) {
            const int mid = (lo + hi) / 2;
            (v < kValues[mid] ? hi : lo) = mid;
        }
        return v - kValues[lo] < kValues[hi] - v ? lo : hi;
    }

    struct ScaleFit {
        float d;
        float score;  // (sum x*k)^2 / sum k*k: the squared error is sum x^2 minus this
    };

    // Assigns each value its nearest table entry under scale d, then returns
    // the scale minimising the squared error for that assignment.
    static ScaleFit least_squares_scale(const float* in, float d) {
        const float inv_d = 1.0f / d;
        float sum_xk = 0.0f, sum_kk = 0.0f;
        for (int j = 0; j < 32; ++j) {
            const float k = kValues[nearest_index(in[j] * inv_d)];
            sum_xk += in[j] * k;
            sum_kk += k * k;
        }
        return {sum_xk / sum_kk, sum_xk * sum_xk / sum_kk};
    }
};
static_assert(QuantType<IQ4_NL> && matches_format<IQ4_NL>());

}  // namespace tessera
