// Products of a weight matrix of any quant type with F32 activation rows: the
// CPU kernels (matvec for one token, tiled matmul for several). The op's
// definition, which tests compare them with, is its scalar reference
// (ops/matmul.cpp). Design and accuracy: docs/cpu-matmul.md.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu/thread_team.hpp"
#include "kernels/quant/activation_precision.hpp"
#include "kernels/quant/ggml_type.hpp"
#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

// From this many tokens on, ActivationPrecision::Q16 multiplies unrounded
// activations with weights dequantized into F32 panels (packed_gemm.hpp);
// fewer tokens use 16-bit activation blocks and integer dots, since
// dequantizing and repacking the whole matrix would cost more than the
// products. 16 is where the two cross (docs/measured-choices.md#q16-gemm-threshold).
inline constexpr int64_t kQ16GemmMinTokens = 16;

struct MatmulArgs {
    GgmlType weight_type;
    const void* w;    // n rows of k values of weight_type (GGUF layout: row j = output feature j)
    size_t w_stride;  // bytes between weight rows
    const float* x;   // m rows of k floats (activations, one row per token)
    size_t x_stride;  // bytes between activation rows
    float* y;         // m rows of n floats: y[i][j] = dot(weight row j, x row i)
    size_t y_stride;  // bytes between output rows
    int64_t n, k, m;
    ActivationPrecision activations = ActivationPrecision::Q8;
};

// Whether ActivationPrecision::Q16 rounds x to 16-bit blocks for m tokens of
// this weight type and k: below kQ16GemmMinTokens, and where an integer path
// takes the product (amx_gemm.hpp, vnni_gemm.hpp; integer_gemm.hpp turns them
// off); elsewhere x is used as it is.
bool q16_matmul_rounds_activations(GgmlType weight_type, int64_t k, int64_t m);

// Whether this build has a CPU kernel for the weight type (every enabled type
// except the activation-only Q8_1 and Q8_K).
bool matmul_supports(GgmlType weight_type);

// Bytes of `work` matmul needs on a team of n_threads: the m activation rows
// converted to the weight type's dot type, shared by the team (one copy per
// thread for m = 1). Throws an Error for an unsupported type or a k that is
// not a multiple of the type's block size.
size_t matmul_work_bytes(GgmlType weight_type, int64_t k, int64_t m, ActivationPrecision activations, int n_threads);

// y = x W^T. Every thread of the team calls it with the same arguments and a
// `work` of matmul_work_bytes (64-byte aligned). The team first converts the
// activations, then splits the weight rows. Throws an Error (before any
// barrier, on every thread alike) for an unsupported type or bad k.
void matmul(const MatmulArgs& a, void* work, const ThreadTeam& team);

// The per-arch kernel behind matmul(), for simd::dispatch.
struct MatmulKernel {
    // Defined in matmul_kernel.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, const MatmulArgs& a, void* work, const ThreadTeam& team) const;
    void operator()(simd::Scalar, const MatmulArgs& a, void* work, const ThreadTeam& team) const;
};

}  // namespace tessera::cpu
