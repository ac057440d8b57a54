// get_rows (ops/get_rows.hpp): the table type's variant of shaders/quant/get_rows.glsl.
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/weight_shaders.hpp"
#include "graph/vulkan/recorder.hpp"
#include "graph/vulkan/shader_library.hpp"
#include "ops/get_rows.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 128;

struct GetRowsPush {  // shaders/quant/get_rows.glsl
    uint32_t k, nrows, table_rows;
    uint32_t w_first, w_nb1;
    uint32_t ids_first, y_first, y_nb1;
};

bool supports(const Tensor& y) {
    // The shader dequantizes 4 values at a time.
    return find_shader(weight_shader("get_rows", y.src[0]->type)) && in_gpu_layout(*y.src[0]) && y.ne[0] % 4 == 0 &&
           dense_rows(y, 4);
}

void record(const Tensor& y, Recorder& rec) {
    const Tensor &table = *y.src[0], &ids = *y.src[1];
    const BoundTensor bw = bind_blocks(rec, table), bi = rec.bind(ids), by = rec.bind(y);
    const uint32_t block = ggml_type_traits(table.type).block_bytes;
    const GetRowsPush push{.k = uint32_t(y.ne[0]),
                           .nrows = uint32_t(y.ne[1]),
                           .table_rows = uint32_t(table.ne[1]),
                           .w_first = bw.first(block),
                           .w_nb1 = uint32_t(table.nb[1] / block),
                           .ids_first = bi.first(4),
                           .y_first = by.first(4),
                           .y_nb1 = uint32_t(y.nb[1] / 4)};
    rec.dispatch(weight_shader("get_rows", table.type), {kGroup}, {bw, bi}, {by}, push, uint64_t(y.ne[1]));
}

const VulkanKernel kGetRows{&ops::kGetRows, supports, record};
[[maybe_unused]] const bool registered = register_kernel(kGetRows);

}  // namespace

}  // namespace tessera::vkk
