// Row conversions between F32 and the tensor types: KV cache stores (F32 -> F16)
// and embedding lookup (a row of any type -> F32).
#pragma once

#include <cstdint>

#include "kernels/quant/ggml_type.hpp"
#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

// Bit-exact with fp32_to_fp16 (half.hpp): round to nearest even, nan, inf and subnormals included.
struct F32ToF16 {
    // Defined in convert.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, const float* src, uint16_t* dst, int64_t n) const;
    void operator()(simd::Scalar, const float* src, uint16_t* dst, int64_t n) const;
};

// Bit-exact with fp16_to_fp32 (half.hpp), nan payloads included.
struct F16ToF32 {
    template <class Arch>
    void operator()(Arch, const uint16_t* src, float* dst, int64_t n) const;
    void operator()(simd::Scalar, const uint16_t* src, float* dst, int64_t n) const;
};

// Bit-exact with bf16_to_fp32 (half.hpp).
struct Bf16ToF32 {
    template <class Arch>
    void operator()(Arch, const uint16_t* src, float* dst, int64_t n) const;
    void operator()(simd::Scalar, const uint16_t* src, float* dst, int64_t n) const;
};

// n floats to a row of dst_type. F32, F16 and BF16 are always available (F16
// vectorized); other types use the quantizer of the build's registry, so n
// must be a multiple of the type's block size. Throws an Error for a negative
// n, a type this build lacks or a bad row length.
void convert_f32_to(GgmlType dst_type, const float* src, void* dst, int64_t n);

// A row of n values of src_type to floats, bit-exact with the type's
// dequantize. F32, F16 and BF16 are always available and vectorized; other
// types use the registry's dequantizer. Errors as for convert_f32_to.
void convert_to_f32(GgmlType src_type, const void* src, float* dst, int64_t n);

}  // namespace tessera::cpu
