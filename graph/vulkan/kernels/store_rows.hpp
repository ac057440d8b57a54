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
};

// An F32 or F16 destination.
bool stores_into(const Tensor& dst);
StorePush store_push(const Tensor& src, const BoundTensor& bsrc, RowLayout dst, uint32_t dst_ne1, uint32_t rows_first);
uint64_t store_groups(const Tensor& src);
// Stores src's rows into y (a copy or set_rows node, which aliases its
// destination): row i to row i, or with `rows` to row rows[i].
void record_store(const Tensor& y, const Tensor& src, const Tensor* rows, Recorder& rec);

}  // namespace tessera::vkk
