// rms_norm (shaders/rms_norm.comp): one workgroup per row, the weight row
// applied in the same pass when the node has one, and y's fp16 copy written
// beside it when a tensor-core matmul reads y (half_copy.hpp).
#include <algorithm>

#include "graph/vulkan/kernels/half_copy.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/recorder.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "ops/rms_norm.hpp"

namespace tessera::vkk {

namespace {

// As many invocations as a workgroup may have, up to 1024: a row is one
// workgroup's, and each invocation's loads wait in turn.
uint32_t group_size(const VulkanDevice& device) {
    return device.strided_group_size(
        std::min({1024u, device.limits().maxComputeWorkGroupInvocations, device.limits().maxComputeWorkGroupSize[0]}));
}

struct Push {
    RowShape rows;
    RowLayout x;
    RowLayout y;
    uint32_t w_first;
    float eps;
};

bool supports(const Tensor&) { return true; }  // every rms_norm: F32 rows, an F32 weight row

void record(const Tensor& y, Recorder& rec) {
    const Tensor& x = *y.src[0];
    const bool weighted = y.src.size() > 1;
    const BoundTensor bx = rec.bind(x), by = rec.bind(y), bw = weighted ? rec.bind(*y.src[1]) : bx;
    const Push push{row_shape(y), row_layout(x, bx, 4), row_layout(y, by, 4), bw.first(4),
                    y.param<RmsNormParams>().eps};
    const HalfOutput half = half_output(y, by, rec);
    rec.dispatch("rms_norm", {group_size(rec.device()), uint32_t(weighted), uint32_t(half.wanted)}, {bx, bw},
                 {by, half.binding}, push, push.rows.nrows);
    half_output_written(y, by, half, rec);
}

const VulkanKernel kRmsNorm{&ops::kRmsNorm, supports, record};
[[maybe_unused]] const bool registered = register_kernel(kRmsNorm);

}  // namespace

}  // namespace tessera::vkk
