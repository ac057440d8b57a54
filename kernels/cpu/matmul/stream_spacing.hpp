// How far apart the row streams of one token's matmul lie (the driver reads
// a thread's rows as kRows streams side by side: driver.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace tessera::cpu::matmul_detail {

// The least distance, in bytes, between the offsets in a 4 KiB page of
// `streams` streams `apart` bytes apart.
inline int64_t page_spread(size_t apart, int streams) {
    int64_t least = 4096;
    for (int i = 1; i < streams; ++i) {
        const auto offset = int64_t(size_t(i) * apart % 4096);
        least = std::min({least, offset, 4096 - offset});
    }
    return least;
}

// Rows in each of `streams` streams read side by side from `rows` rows of
// `stride` bytes: rows / streams, lowered by up to 8 (and at most a quarter;
// the caller reads the rows left over after the streams) where that puts the
// streams at least kStreamSpread bytes apart in the page. Streams a multiple
// of 4 KiB apart share cache sets all the way along, which slowed generation
// from weights on huge pages (docs/measured-choices.md#matvec-streams-apart-in-the-page).
inline constexpr int64_t kStreamSpread = 512;
inline int64_t stream_rows(int64_t rows, size_t stride, int streams) {
    const int64_t even = rows / streams;
    int64_t best = even, best_spread = page_spread(size_t(even) * stride, streams);
    for (int64_t q = even - 1; q >= std::max(even - 8, even - even / 4) && best_spread < kStreamSpread; --q)
        if (const int64_t spread = page_spread(size_t(q) * stride, streams); spread > best_spread)
            best = q, best_spread = spread;
    return best;
}

}  // namespace tessera::cpu::matmul_detail
