// What the elementwise kernels (add, mul, swiglu, geglu over shaders/binary.glsl;
// scale, silu, softcap over shaders/unary.glsl) share: each row of y split over
// workgroups of 256, about 4 values per invocation, so that one token's row
// spreads over several compute units.
#pragma once

#include <string_view>

#include "graph/tensor.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera::vkk {

// F32 node and sources with dense rows: what every elementwise kernel takes.
bool f32_dense(const Tensor& node);

// y = a (op) b with b's rows repeated over a's, by the shader named like the
// op ("add", "mul", "swiglu"); y's fp16 copy too where a tensor-core matmul
// reads y (half_copy.hpp).
void record_binary(std::string_view shader, const Tensor& a, const Tensor& b, const Tensor& y, Recorder& rec);
// y = op(x), by the shader named like the op ("scale" with factor s, "silu").
void record_unary(std::string_view shader, const Tensor& x, const Tensor& y, float s, Recorder& rec);

// y += addend, the addend's rows repeated over y (matmul's `plus`).
void record_add_in_place(const Tensor& y, const Tensor& addend, Recorder& rec);

}  // namespace tessera::vkk
