// scale (shaders/scale.comp over unary.glsl): see elementwise.hpp.
#include "graph/vulkan/kernels/elementwise.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "ops/scale.hpp"

namespace tessera::vkk {

namespace {

void record(const Tensor& y, Recorder& rec) { record_unary("scale", *y.src[0], y, y.param<ScaleParams>().s, rec); }

const VulkanKernel kScale{&ops::kScale, f32_dense, record};
[[maybe_unused]] const bool registered = register_kernel(kScale);

}  // namespace

}  // namespace tessera::vkk
