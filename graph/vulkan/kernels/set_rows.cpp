// set_rows (shaders/set_rows.comp): F32 rows into rows of an F32 or F16
// destination (store_rows.hpp). src[0] = destination, src[1] = rows to
// write, src[2] = their row ids, the same for every i3 or per i3 (a batch of
// sequences). Rows of an inlined matmul (or of its inlined rope) are stored
// by the matvec, those of a rope of an inlined rms_norm by head_norm_rope.
#include "graph/vulkan/kernels/head_norm_rope.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/matvec_fusion.hpp"
#include "graph/vulkan/kernels/store_rows.hpp"
#include "ops/set_rows.hpp"

namespace tessera::vkk {

namespace {

bool supports(const Tensor& y) { return stores_into(y); }

void record(const Tensor& y, Recorder& rec) {
    if (const auto f = fused_matvec(y)) return record_matvec(*f, rec);
    if (const auto f = head_norm_rope(y)) return record_head_norm_rope(*f, rec);
    record_store(y, *y.src[1], y.src[2], rec);
}

const VulkanKernel kSetRows{&ops::kSetRows, supports, record};
[[maybe_unused]] const bool registered = register_kernel(kSetRows);

}  // namespace

}  // namespace tessera::vkk
