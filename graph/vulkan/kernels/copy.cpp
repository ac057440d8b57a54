// copy and set_rows (shaders/copy.comp, set_rows.comp): F32 rows into an F32
// or F16 destination, one invocation per element. Quantized destinations
// stay on the CPU.
#include "graph/vulkan/kernels/half_copy.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/matvec_fusion.hpp"
#include "graph/vulkan/kernels/registry.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 256;

struct Push {
    uint32_t ne0, ne1, ne2, total;
    RowLayout src;
    RowLayout dst;
    uint32_t dst_ne1, rows_first;
};

uint32_t dst_bytes(const Tensor& y) { return y.type == GgmlType::F16 ? 2 : 4; }

bool supports(const Tensor& y) { return y.type == GgmlType::F32 || y.type == GgmlType::F16; }

Push push_for(const Tensor& src, const BoundTensor& bsrc, RowLayout dst, uint32_t dst_ne1, uint32_t rows_first) {
    return {uint32_t(src.ne[0]), uint32_t(src.ne[1]), uint32_t(src.ne[2]), uint32_t(src.nelements()),
            row_layout(src, bsrc, 4), dst, dst_ne1, rows_first};
}

uint64_t groups_for(const Tensor& src) { return (uint64_t(src.nelements()) + kGroup - 1) / kGroup; }

// The node aliases the destination, so binding it binds the destination.
void store(const Tensor& y, const Tensor& src, const Tensor* rows, Recorder& rec) {
    const BoundTensor bsrc = rec.bind(src), by = rec.bind(y);
    const BoundTensor brows = rows ? rec.bind(*rows) : BoundTensor{};
    const Push push = push_for(src, bsrc, row_layout(y, by, dst_bytes(y)), uint32_t(y.ne[1]), brows.first(4));
    const std::vector<uint32_t> spec{kGroup, uint32_t(y.type == GgmlType::F16)};
    if (rows)
        rec.dispatch("set_rows", spec, {bsrc, brows}, {by}, push, groups_for(src));
    else
        rec.dispatch("copy", spec, {bsrc}, {by}, push, groups_for(src));
}

// copy: src[0] = source, src[1] = destination.
void record_copy(const Tensor& y, Recorder& rec) { store(y, *y.src[0], nullptr, rec); }
// set_rows: src[0] = destination, src[1] = rows to write, src[2] = their row ids.
// Rows of an inlined matmul (or of its inlined rope) are stored by the matvec.
void record_set_rows(const Tensor& y, Recorder& rec) {
    if (const auto f = fused_matvec(y)) return record_matvec(*f, rec);
    store(y, *y.src[1], y.src[2], rec);
}

}  // namespace

HalfCopy record_half_copy(const Tensor& src, Recorder& rec) {
    const BoundTensor bsrc = rec.bind(src);
    bool fresh = false;
    const uint32_t ne0 = uint32_t(src.ne[0]), ne1 = uint32_t(src.ne[1]);
    const HalfCopy half{rec.derived_copy(bsrc, half_copy_form(src), VkDeviceSize(src.nelements()) * 2, fresh),
                        {0, ne0, ne0 * ne1, ne0 * ne1 * uint32_t(src.ne[2])}};
    if (fresh)
        rec.dispatch("copy", {kGroup, 1u}, {bsrc}, {half.binding}, push_for(src, bsrc, half.rows, ne1, 0),
                     groups_for(src));
    return half;
}

const VulkanKernel kCopy{"copy", supports, record_copy};
const VulkanKernel kSetRows{"set_rows", supports, record_set_rows};

}  // namespace tessera::vkk
