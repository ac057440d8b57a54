// softcap: y = cap * tanh(x / cap) on rows, which bounds values to (-cap, cap)
// and leaves small ones almost unchanged (Gemma 2's final-logit soft-capping).
// y may be x.
#pragma once

#include <cstdint>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

struct Softcap {
    // Defined in softcap.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, const float* x, float* y, int64_t n, float cap) const;
    void operator()(simd::Scalar, const float* x, float* y, int64_t n, float cap) const;
};

// Dispatches to the best arch of this CPU (softcap_entry.cpp). cap > 0.
void softcap(const float* x, float* y, int64_t n, float cap);

}  // namespace tessera::cpu
