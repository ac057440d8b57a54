// Access to a weight row span by span (unpack.hpp): the driver's unit of
// unpacking. Internal linkage: see unpack.hpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/cpu/matmul/unpack.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

template <class T>
struct Span {
    using Block = typename T::Block;
    static constexpr int64_t kValues = Unpack<T>::kInt ? kSpan : kFloatSpan;
    static constexpr int64_t kBlocks = kValues / T::block_elems;
    static constexpr int kChunks = 4;
    static_assert(kValues % T::block_elems == 0);

    // Spans of a row of row_blocks blocks that lie wholly in the row.
    static int64_t whole(int64_t row_blocks) { return row_blocks / kBlocks; }

    // Span s of a row whose values end inside it: a copy zero padded to the
    // whole span (zero blocks have a zero scale; the activations are zero padded too).
    const Block* padded(const Block* row, int64_t s, int64_t row_blocks) {
        const int64_t first = s * kBlocks;
        std::memset(static_cast<void*>(tail), 0, sizeof tail);
        std::memcpy(static_cast<void*>(tail), row + first, size_t(row_blocks - first) * sizeof(Block));
        return tail;
    }

    // The blocks of span s of a row: in place, or padded().
    const Block* blocks(const Block* row, int64_t s, int64_t row_blocks) {
        return s < whole(row_blocks) ? row + s * kBlocks : padded(row, s, row_blocks);
    }

    // Asks for the lines of the span at `blocks` + `ahead` bytes. One address
    // per 64 bytes: with the following spans' that touches every line of the row.
    static void prefetch(const Block* blocks, size_t ahead) {
        const char* p = reinterpret_cast<const char*>(blocks) + ahead;
        for (size_t b = 0; b < sizeof(Block) * kBlocks; b += 64) __builtin_prefetch(p + b);
    }

    Block tail[kBlocks];
};

// f.template operator()<C>() for C = 0 .. 3, unrolled (C selects shifts at compile time).
template <class F>
void for_chunks(F&& f) {
    [&]<int... C>(std::integer_sequence<int, C...>) {
        (f.template operator()<C>(), ...);
    }(std::make_integer_sequence<int, 4>{});
}

}  // namespace
}  // namespace tessera::cpu::matmul_detail
