// An fp16 copy of an F32 tensor, for kernels that read their input as fp16
// (the tensor-core matmul rounds x to fp16 anyway; reading it so once
// instead of converting it in every workgroup halves its loads). The
// kernel that stores the tensor writes the copy beside it where the
// recording wants one (Recorder::want_half_copy); else the reader records
// a copy dispatch of its own.
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

// The copy's form for Recorder::derived_copy: one for every contiguous
// tensor (reshapes of one range share their copy), else a hash of the
// shape and strides.
uint64_t half_copy_form(const Tensor& src);

// Records the copy into the recorder's scratch memory, or reuses the one an
// earlier command made while it is current.
HalfCopy record_half_copy(const Tensor& src, Recorder& rec);

// The tensor whose kernel can write src's copy as it stores it: src, or the
// tensor src is a reshape of (the same elements in the same order);
// nullptr when src is not contiguous.
const Tensor* half_copy_writer(const Tensor& src);

// For a kernel storing y (contiguous): where it writes y's copy, element i
// of y at element i of the binding, when the recording wants one. `binding`
// is y's own when not wanted (bound, never written).
struct HalfOutput {
    bool wanted = false;
    BoundTensor binding;
};
HalfOutput half_output(const Tensor& y, const BoundTensor& by, Recorder& rec);
// The scratch memory half_output takes for y's copy, at the start of the
// recorder's scratch region (Recorder::scratch): y.nelements() halves, or 0
// where it wants no copy.
VkDeviceSize half_output_bytes(const Tensor& y, const Recorder& rec);
// After the kernel's dispatch: the copy is current (nothing when not wanted).
void half_output_written(const Tensor& y, const BoundTensor& by, const HalfOutput& half, Recorder& rec);

}  // namespace tessera::vkk
