// silu (shaders/silu.comp over unary.glsl): see elementwise.hpp.
#include "graph/vulkan/kernels/elementwise.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "ops/silu.hpp"

namespace tessera::vkk {

namespace {

void record(const Tensor& y, Recorder& rec) { record_unary("silu", *y.src[0], y, 0.0f, rec); }

const VulkanKernel kSilu{&ops::kSilu, f32_dense, record};
[[maybe_unused]] const bool registered = register_kernel(kSilu);

}  // namespace

}  // namespace tessera::vkk
