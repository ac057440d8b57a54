// What copy, set_rows and the fp16 copies of half_copy.hpp share: F32 rows
// stored into an F32 or F16 destination, one invocation per element
// (shaders/copy.glsl). Quantized destinations stay on the CPU.
#pragma once

#include <cstdint>

#include "graph/tensor.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera::vkk {

constexpr uint32_t kStoreGroup = 256;

struct StorePush {
    uint32_t ne0, ne1, ne2, total;
    RowLayout src;
    RowLayout dst;
    uint32_t dst_ne1, rows_first;
    uint32_t rows_nb1;  // set_rows: ids per i3 (0: the same ids for every i3)
};

// An F32 or F16 destination.
bool stores_into(const Tensor& dst);
StorePush store_push(const Tensor& src, const BoundTensor& bsrc, RowLayout dst, uint32_t dst_ne1, uint32_t rows_first,
                     uint32_t rows_nb1 = 0);
uint64_t store_groups(const Tensor& src);
// Stores src's rows into y (a copy or set_rows node, which aliases its
// destination): row i to row i, or with `rows` (I32 [r] or [r, ne3]) to row
// rows[i] (rows[i, i3]); a negative id stores nothing.
void record_store(const Tensor& y, const Tensor& src, const Tensor* rows, Recorder& rec);

}  // namespace tessera::vkk
