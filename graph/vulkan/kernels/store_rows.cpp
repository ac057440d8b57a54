#include "graph/vulkan/kernels/store_rows.hpp"

#include <vector>

namespace tessera::vkk {

bool stores_into(const Tensor& dst) { return dst.type == GgmlType::F32 || dst.type == GgmlType::F16; }

StorePush store_push(const Tensor& src, const BoundTensor& bsrc, RowLayout dst, uint32_t dst_ne1, uint32_t rows_first,
                     uint32_t rows_nb1) {
    return {uint32_t(src.ne[0]), uint32_t(src.ne[1]), uint32_t(src.ne[2]), uint32_t(src.nelements()),
            row_layout(src, bsrc, 4), dst, dst_ne1, rows_first, rows_nb1};
}

uint64_t store_groups(const Tensor& src) { return (uint64_t(src.nelements()) + kStoreGroup - 1) / kStoreGroup; }

// The node aliases the destination, so binding it binds the destination.
void record_store(const Tensor& y, const Tensor& src, const Tensor* rows, Recorder& rec) {
    const BoundTensor bsrc = rec.bind(src), by = rec.bind(y);
    const BoundTensor brows = rows ? rec.bind(*rows) : BoundTensor{};
    const uint32_t dst_bytes = y.type == GgmlType::F16 ? 2 : 4;
    // Ids of their own per i3 where rows is [r, ne3] (ops/set_rows.hpp; rows is contiguous).
    const uint32_t rows_nb1 = rows && rows->ne[1] > 1 ? uint32_t(rows->ne[0]) : 0;
    const StorePush push =
        store_push(src, bsrc, row_layout(y, by, dst_bytes), uint32_t(y.ne[1]), brows.first(4), rows_nb1);
    const std::vector<uint32_t> spec{kStoreGroup, uint32_t(y.type == GgmlType::F16)};
    if (rows)
        rec.dispatch("set_rows", spec, {bsrc, brows}, {by}, push, store_groups(src));
    else
        rec.dispatch("copy", spec, {bsrc}, {by}, push, store_groups(src));
}

}  // namespace tessera::vkk
