#include "ops/common/check.hpp"

#include "support/error.hpp"

namespace tessera::check {

void fail(std::string_view op, const std::string& message) { throw Error(std::string(op) + ": " + message); }

void type(std::string_view op, const Tensor& t, GgmlType expected) {
    that(t.type == expected, op,
         [&] { return describe(t) + " must be of type " + std::string(ggml_type_traits(expected).name); });
}

void same_shape(std::string_view op, const Tensor& a, const Tensor& b) {
    that(a.ne == b.ne, op, [&] { return describe(a) + " and " + describe(b) + " must have the same shape"; });
}

void rows_contiguous(std::string_view op, const Tensor& t) {
    that(t.nb[0] == ggml_type_traits(t.type).block_bytes, op,
         [&] { return describe(t) + " must have contiguous rows (copy it first)"; });
}

bool repeats_over(const Shape& shape, const Tensor& b) {
    bool ok = true;
    for (int d = 0; d < kMaxDims; ++d) ok = ok && b.ne[d] > 0 && shape[size_t(d)] % b.ne[d] == 0;
    return ok;
}

void broadcastable(std::string_view op, const Tensor& a, const Tensor& b) {
    that(repeats_over(a.ne, b), op, [&] { return describe(b) + " cannot be repeated over " + describe(a); });
}

void dim(std::string_view op, const Tensor& t, int d, int64_t n, std::string_view what) {
    that(t.ne[d] == n, op,
         [&] { return describe(t) + ": dimension " + std::to_string(d) + " must be " + std::string(what) + " = " +
             std::to_string(n); });
}

}  // namespace tessera::check
