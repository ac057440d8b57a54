// copy (shaders/copy.comp): F32 rows into an F32 or F16 destination
// (store_rows.hpp). src[0] = source, src[1] = destination.
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/store_rows.hpp"
#include "ops/copy.hpp"

namespace tessera::vkk {

namespace {

bool supports(const Tensor& y) { return stores_into(y); }

void record(const Tensor& y, Recorder& rec) { record_store(y, *y.src[0], nullptr, rec); }

const VulkanKernel kCopy{&ops::kCopy, supports, record};
[[maybe_unused]] const bool registered = register_kernel(kCopy);

}  // namespace

}  // namespace tessera::vkk
