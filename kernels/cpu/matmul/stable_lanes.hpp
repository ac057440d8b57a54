// Lane-stable chunks for the matvec (stream.hpp). A type's ordinary chunk C
// holds values 64C .. 64C + 63, so each 32-bit lane of the dot sees another
// group in every chunk, and every chunk needs its own convert, scale and FMA.
// A type may also unpack its span as four "stable" chunks, in whatever order
// of values is cheap for it, if each lane holds values of one group in every
// chunk of a class (chunks with the same lane -> group map). Then the dots of
// a class add up as integers (dpbusd accumulating) and take their scales in
// one convert and FMA per span. The matvec's activations are laid out in the
// same order: after conversion, each span's 64-bit words are permuted.
//
// The type's CpuUnpack provides
//   stable_chunk<Ops, C>(span)   the bytes of stable chunk C (0..3)
//   stable_value(C, p)           the span value (0..255) at byte p of stable chunk C
// with runs of 8 consecutive values per 64-bit word. A class's sums start
// from its lanes' bias (the weight offset, activations.hpp), which arrange()
// gathers into the bias lanes of the class's first chunk; with kOffset 0
// they start from zero. Internal linkage: see unpack.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/matmul/unpack.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

template <class T>
concept HasStableChunks = requires { Unpack<T>::stable_value(0, 0); };

template <class T>
    requires HasStableChunks<T>
struct StableLanes {
    using U = Unpack<T>;

    // The group of each lane of stable chunk C.
    static constexpr std::array<int32_t, 16> lane_groups(int C) {
        std::array<int32_t, 16> g{};
        for (int l = 0; l < 16; ++l) g[size_t(l)] = U::stable_value(C, 4 * l) / U::kGroup;
        return g;
    }
    // The first chunk of C's class, whose integer sums C's dots join, and
    // the last, after which they are complete.
    static constexpr int first_of_class(int C) {
        for (int c = 0; c < C; ++c)
            if (lane_groups(c) == lane_groups(C)) return c;
        return C;
    }
    static constexpr int last_of_class(int C) {
        for (int c = 3; c > C; --c)
            if (lane_groups(c) == lane_groups(C)) return c;
        return C;
    }
    // Source word (within the span, 8 values each) of each of the 32 words of the permuted span.
    static constexpr std::array<uint8_t, 32> kSourceWords = [] {
        std::array<uint8_t, 32> w{};
        for (int c = 0; c < 4; ++c)
            for (int j = 0; j < 8; ++j) w[size_t(8 * c + j)] = uint8_t(U::stable_value(c, 8 * j) / 8);
        return w;
    }();

    static constexpr bool valid() {
        bool seen[256] = {};
        for (int c = 0; c < 4; ++c)
            for (int p = 0; p < 64; ++p) {
                const int v = U::stable_value(c, p);
                if (v < 0 || v >= 256 || seen[v] || v != U::stable_value(c, p / 8 * 8) + p % 8 ||
                    v / U::kGroup != U::stable_value(c, p / 4 * 4) / U::kGroup)
                    return false;
                seen[v] = true;
            }
        return true;
    }
    static_assert(valid(), "stable_value: a permutation of the span in runs of 8, one group per lane");

    // Puts a converted activation row (layout.row_bytes at act) in stable order.
    template <class Layout>
    static void arrange(const Layout& layout, uint8_t* act) {
        const int64_t spans = layout.padded / kSpan;
        permute(reinterpret_cast<uint8_t*>(layout.a(act)), spans);
        if constexpr (Layout::kWide) permute(reinterpret_cast<uint8_t*>(layout.lo(act)), spans);
        if constexpr (U::kOffset != 0) {
            // 2 bias lanes per 8 values: the same words move as the bytes'.
            int32_t* bias = layout.bias(act);
            permute(reinterpret_cast<uint8_t*>(bias), spans);
            for (int64_t s = 0; s < spans; ++s)
                for (int c = 0; c < 4; ++c)
                    if (const int k = first_of_class(c); k != c)
                        for (int l = 0; l < 16; ++l) bias[64 * s + 16 * k + l] += bias[64 * s + 16 * c + l];
        }
    }

private:
    // A span is kSpan bytes of activations or kSpan / 4 int32 bias lanes:
    // either way 32 words of 8 bytes, permuted alike.
    static constexpr int64_t kSpanBytes = kSpan;
    static_assert(kSpan / 4 * int64_t(sizeof(int32_t)) == kSpanBytes && int64_t(kSourceWords.size()) * 8 == kSpanBytes);

    static void permute(uint8_t* row, int64_t spans) {
        for (int64_t s = 0; s < spans; ++s) {
            uint8_t* span = row + s * kSpanBytes;
            uint8_t natural[kSpanBytes];
            std::memcpy(natural, span, sizeof natural);
            for (size_t w = 0; w < kSourceWords.size(); ++w) std::memcpy(span + 8 * w, natural + 8 * kSourceWords[w], 8);
        }
    }
};

}  // namespace
}  // namespace tessera::cpu::matmul_detail
