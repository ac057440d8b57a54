// swiglu (shaders/swiglu.comp over binary.glsl): see elementwise.hpp.
#include "graph/vulkan/kernels/elementwise.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "ops/swiglu.hpp"

namespace tessera::vkk {

namespace {

void record(const Tensor& y, Recorder& rec) { record_binary("swiglu", *y.src[0], *y.src[1], y, rec); }

const VulkanKernel kSwiglu{&ops::kSwiglu, f32_dense, record};
[[maybe_unused]] const bool registered = register_kernel(kSwiglu);

}  // namespace

}  // namespace tessera::vkk
