// The dispatching entry points of the row conversions and their scalar fallbacks.
// Compiled without arch flags: in a portable build this code runs on any
// x86-64 CPU before an arch is picked.
#include <cstring>
#include <string>

#include "kernels/cpu/convert.hpp"
#include "kernels/quant/half.hpp"
#include "kernels/quant/registry.hpp"
#include "kernels/simd/dispatch.hpp"
#include "support/error.hpp"

namespace tessera::cpu {

void F32ToF16::operator()(simd::Scalar, const float* src, uint16_t* dst, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) dst[i] = fp32_to_fp16(src[i]);
}

void F16ToF32::operator()(simd::Scalar, const uint16_t* src, float* dst, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) dst[i] = fp16_to_fp32(src[i]);
}

void Bf16ToF32::operator()(simd::Scalar, const uint16_t* src, float* dst, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_fp32(src[i]);
}

namespace {

void check_row_length(const char* what, int64_t n) {
    if (n < 0) throw Error(std::string(what) + ": row length " + std::to_string(n) + " is negative");
}

}  // namespace

void convert_f32_to(GgmlType dst_type, const float* src, void* dst, int64_t n) {
    check_row_length("convert_f32_to", n);
    switch (dst_type) {
        case GgmlType::F32:
            std::memmove(dst, src, size_t(n) * sizeof(float));
            return;
        case GgmlType::F16: {
            static auto kernel = simd::dispatch<simd::CpuArchs>(F32ToF16{});
            kernel(src, static_cast<uint16_t*>(dst), n);
            return;
        }
        case GgmlType::BF16: {
            auto* out = static_cast<uint16_t*>(dst);
            for (int64_t i = 0; i < n; ++i) out[i] = fp32_to_bf16(src[i]);
            return;
        }
        default:
            require_quant_type(dst_type, "convert_f32_to").quantize(src, dst, n);
    }
}

void convert_to_f32(GgmlType src_type, const void* src, float* dst, int64_t n) {
    check_row_length("convert_to_f32", n);
    switch (src_type) {
        case GgmlType::F32:
            std::memmove(dst, src, size_t(n) * sizeof(float));
            return;
        case GgmlType::F16: {
            static auto kernel = simd::dispatch<simd::CpuArchs>(F16ToF32{});
            kernel(static_cast<const uint16_t*>(src), dst, n);
            return;
        }
        case GgmlType::BF16: {
            static auto kernel = simd::dispatch<simd::CpuArchs>(Bf16ToF32{});
            kernel(static_cast<const uint16_t*>(src), dst, n);
            return;
        }
        default:
            require_quant_type(src_type, "convert_to_f32").dequantize(src, dst, n);
    }
}

}  // namespace tessera::cpu
