// transfer: a dense copy of a tensor another backend stored (in shared
// memory, see graph/backend.hpp), one buffer copy region per row.
#include "graph/row_loop.hpp"
#include "graph/transfer.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera::vkk {

namespace {

bool supports(const Tensor& y) { return y.src[0]->nb[0] == ggml_type_traits(y.type).block_bytes; }

void record(const Tensor& y, Recorder& rec) {
    const Tensor& x = *y.src[0];
    const BoundTensor bx = rec.bind(x), by = rec.bind(y);
    std::vector<VkBufferCopy> regions;
    const size_t row_bytes = y.row_bytes();
    if (x.is_contiguous()) {
        regions.push_back({0, 0, y.nbytes()});
    } else {
        for_each_row(y, [&](RowIndex ri) {
            const size_t src = size_t(ri.i1) * x.nb[1] + size_t(ri.i2) * x.nb[2] + size_t(ri.i3) * x.nb[3];
            const size_t dst = size_t(ri.i1) * y.nb[1] + size_t(ri.i2) * y.nb[2] + size_t(ri.i3) * y.nb[3];
            regions.push_back({src, dst, row_bytes});
        });
    }
    rec.copy(bx, by, regions);
}

const VulkanKernel kTransfer{&ops::kTransfer, supports, record};
[[maybe_unused]] const bool registered = register_kernel(kTransfer);

}  // namespace

}  // namespace tessera::vkk
