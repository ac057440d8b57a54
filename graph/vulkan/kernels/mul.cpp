// mul (shaders/mul.comp over binary.glsl): see elementwise.hpp.
#include "graph/vulkan/kernels/elementwise.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "ops/mul.hpp"

namespace tessera::vkk {

namespace {

void record(const Tensor& y, Recorder& rec) { record_binary("mul", *y.src[0], *y.src[1], y, rec); }

const VulkanKernel kMul{&ops::kMul, f32_dense, record};
[[maybe_unused]] const bool registered = register_kernel(kMul);

}  // namespace

}  // namespace tessera::vkk
