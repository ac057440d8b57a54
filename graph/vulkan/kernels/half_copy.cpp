#include "graph/vulkan/kernels/half_copy.hpp"

#include "graph/vulkan/kernels/store_rows.hpp"

namespace tessera::vkk {

uint64_t half_copy_form(const Tensor& src) {
    if (src.is_contiguous()) return 0;
    uint64_t layout = 0;
    for (int i = 0; i < 4; ++i) layout = (layout * 1000003 + uint64_t(src.ne[i])) * 1000003 + uint64_t(src.nb[i]);
    return layout | 1;
}

const Tensor* half_copy_writer(const Tensor& src) {
    if (!src.is_contiguous()) return nullptr;
    const Tensor* t = &src;
    for (; t->is_view(); t = t->src[0])
        if (t->view_offset != 0) return nullptr;
    // Both dense from the same first byte: element i of one is element i of the other.
    return t->is_contiguous() && t->nelements() == src.nelements() ? t : nullptr;
}

HalfCopy record_half_copy(const Tensor& src, Recorder& rec) {
    const BoundTensor bsrc = rec.bind(src);
    bool fresh = false;
    const uint32_t ne0 = uint32_t(src.ne[0]), ne1 = uint32_t(src.ne[1]);
    const HalfCopy half{rec.derived_copy(bsrc, half_copy_form(src), VkDeviceSize(src.nelements()) * 2, fresh),
                        {0, ne0, ne0 * ne1, ne0 * ne1 * uint32_t(src.ne[2])}};
    if (fresh)
        rec.dispatch("copy", {kStoreGroup, 1u}, {bsrc}, {half.binding}, store_push(src, bsrc, half.rows, ne1, 0),
                     store_groups(src));
    return half;
}

VkDeviceSize half_output_bytes(const Tensor& y, const Recorder& rec) {
    return y.is_contiguous() && rec.half_copy_wanted(y) ? VkDeviceSize(y.nelements()) * 2 : 0;
}

HalfOutput half_output(const Tensor& y, const BoundTensor& by, Recorder& rec) {
    const VkDeviceSize bytes = half_output_bytes(y, rec);
    if (bytes == 0) return {false, by};
    return {true, rec.scratch(bytes)};
}

void half_output_written(const Tensor& y, const BoundTensor& by, const HalfOutput& half, Recorder& rec) {
    if (half.wanted) rec.holds_copy(by, half_copy_form(y), VkDeviceSize(y.nelements()) * 2);
}

}  // namespace tessera::vkk
