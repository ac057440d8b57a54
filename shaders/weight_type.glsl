// The interface of a weight type's GLSL part, kernels/quant/types/<type>.glsl,
// which codegen/shaders.cmake includes ahead of each skeleton of
// shaders/quant/ to make that skeleton's variant for the type. A type file
// includes this file first, then defines:
//
//   QK                         values per block: rows are whole blocks
//   the weight tensor          one or more readonly scalar-layout views of
//                              the buffer at binding WEIGHTS_BINDING: the
//                              blocks as a struct (weights[], the C++ Block
//                              of <type>.hpp), or as words as wide as the
//                              blocks' alignment allows (a GPU pays for each
//                              load instruction more than for its bytes:
//                              q4_k.glsl, q5_0.glsl)
//   vec4 dequant4(uint row, uint i)
//                              values i..i+3 (i a multiple of 4) of the row
//                              whose first block is block `row` of the binding
//
// and optionally, with #define HAS_DEQUANT16,
//
//   mat4 dequant16(uint row, uint i)
//                              values i..i+15 (i a multiple of 16), column j
//                              exactly dequant4(row, i + 4j): the matmuls'
//                              fetch then takes 16 values of a row at once
//                              (Q4_K and Q6_K decode the scale once per 16,
//                              Q4_0 loads 16 values' qs at once)
//
// or, with #define HAS_RAW_HALVES (F16, whose values are the tiles' own),
//
//   uvec2 raw_halves4(uint row, uint i)
//                              values i..i+3 as 4 fp16 bits, one 8-byte load:
//                              the tensor-core matmul copies them to its tile
//                              as they are
//
// A type may also #define FETCH_AFTER_MULTIPLIES: the tensor-core matmul then
// loads each next step's values after the step's multiplies instead of
// before, holding none of them across the multiplies. Measure it: Q4_K
// gained, Q4_0 lost (docs/vulkan.md).
//
// A type whose C++ definition has GpuGroups is uploaded regrouped
// (kernels/quant/gpu_layout.hpp); its part declares the binding as an array
// of groups instead of blocks (q4_0.glsl).
//
// dequant4 must give exactly the C++ dequantize's values (get_rows is tested
// for equality): compute in the same order. Whether a * b + c is fused does
// not matter while the product is exact, as an fp16 scale times a small
// integer is in float.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_scalar_block_layout : require

// The weight tensor is the first input of every weight-type shader.
#define WEIGHTS_BINDING 0
