#include "ops/common/destination.hpp"

#include <string>

#include "kernels/quant/registry.hpp"
#include "ops/common/check.hpp"

namespace tessera {

void check_destination(std::string_view op, const Tensor& dst) {
    require_quant_type(dst.type, std::string(op) + " destination '" + dst.name + "'");
    check::rows_contiguous(op, dst);
    check::that(dst.storage_root()->leaf != LeafKind::Weight, op, [&] { return "cannot write into weight " + describe(dst); });
}

void store_reference(const Tensor& dst, const float* src, char* out) {
    require_quant_type(dst.type, dst.name).quantize_row(src, out, dst.ne[0]);
}

}  // namespace tessera
