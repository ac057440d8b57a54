// rms_norm (shaders/rms_norm.comp): one workgroup per row.
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/registry.hpp"
#include "ops/norm.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 256;

struct Push {
    RowShape rows;
    RowLayout x;
    RowLayout y;
    float eps;
};

bool supports(const Tensor&) { return true; }  // every rms_norm: F32 rows

void record(const Tensor& y, Recorder& rec) {
    const Tensor& x = *y.src[0];
    const BoundTensor bx = rec.bind(x), by = rec.bind(y);
    const Push push{row_shape(y), row_layout(x, bx, 4), row_layout(y, by, 4), y.param<RmsNormParams>().eps};
    rec.dispatch("rms_norm", {kGroup}, {bx}, {by}, push, push.rows.nrows);
}

}  // namespace

const VulkanKernel kRmsNorm{"rms_norm", supports, record};

}  // namespace tessera::vkk
