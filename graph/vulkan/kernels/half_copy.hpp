// An fp16 copy of an F32 tensor, for kernels that read their input as fp16
// (the tensor-core matmul rounds x to fp16 anyway; reading it so once
// instead of converting it in every workgroup halves its loads).
#pragma once

#include "graph/tensor.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera::vkk {

// The copy's binding and where its rows are, in halves: dense and
// contiguous, element (i0, i1, i2, i3) at i0 + ne0 * (i1 + ne1 * (i2 + ne2 *
// i3)).
struct HalfCopy {
    BoundTensor binding;
    RowLayout rows;
};

// Records the copy into the recorder's scratch memory, or reuses the one an
// earlier command made while it is current.
HalfCopy record_half_copy(const Tensor& src, Recorder& rec);

}  // namespace tessera::vkk
