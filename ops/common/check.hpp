// Shape and type rules for op builders: each failed rule throws an Error
// naming the op, the tensor and what was expected.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>

#include "graph/tensor.hpp"

namespace tessera::check {

void type(std::string_view op, const Tensor& t, GgmlType expected);
void same_shape(std::string_view op, const Tensor& a, const Tensor& b);
// ne[0] values of each row are contiguous (nb[0] is the element/block size).
void rows_contiguous(std::string_view op, const Tensor& t);
// Every dimension of b divides the same dimension of `shape` (b can be repeated over it).
bool repeats_over(const Shape& shape, const Tensor& b);
// b can be repeated over a.
void broadcastable(std::string_view op, const Tensor& a, const Tensor& b);
// t.ne[d] == n.
void dim(std::string_view op, const Tensor& t, int d, int64_t n, std::string_view what);
// Throws an Error naming the op, then `message`.
[[noreturn]] void fail(std::string_view op, const std::string& message);
// Any failed condition: fail with `message`, a literal or a function that
// composes it. The function runs only on failure: composing every rule's
// message would double the time a decoder pass takes to build
// (docs/measured-choices.md#op-builders-messages).
template <class Message>
void that(bool ok, std::string_view op, Message&& message) {
    if (ok) return;
    if constexpr (std::is_invocable_v<Message>)
        fail(op, std::string(message()));
    else
        fail(op, std::string(message));
}

}  // namespace tessera::check
