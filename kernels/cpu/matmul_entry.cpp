// The dispatching entry points of the CPU matmul (its scalar fallback:
// matmul_scalar.cpp). Compiled without arch flags, like the other *_entry.cpp files.
#include "kernels/cpu/matmul.hpp"

#include <algorithm>
#include <string>

#include "kernels/cpu/matmul/driver.hpp"
#include "kernels/simd/dispatch.hpp"
#include "support/error.hpp"
#include "tessera/enabled_quant_types.hpp"

namespace tessera::cpu {
namespace {

// The work bytes of the type's activation layout, or an Error.
size_t checked_work_bytes(GgmlType type, int64_t k, int64_t m, ActivationPrecision activations, int n_threads) {
    size_t bytes = 0;
    bool found = false;
    EnabledQuantTypes::for_each([&]<class T>() {
        if constexpr (matmul_detail::HasUnpack<T>) {
            if (T::id != type) return;
            found = true;
            if (k <= 0 || k % int64_t(T::block_elems) != 0 || m < 0)
                throw Error("matmul: k = " + std::to_string(k) + " is not a positive multiple of " +
                            std::string(T::name) + "'s block size " + std::to_string(T::block_elems) +
                            " (m = " + std::to_string(m) + ")");
            using matmul_detail::ActivationLayout;
            const size_t rows = size_t(m == 1 ? std::max(n_threads, 1) : m);  // one token: a copy per thread
            if (activations == ActivationPrecision::Q8) {
                bytes = rows * ActivationLayout<T, ActivationPrecision::Q8>(k).row_bytes;
                return;
            }
            if (m < kQ16GemmMinTokens)  // more tokens read x as it is (packed_gemm.hpp)
                bytes = rows * ActivationLayout<T, ActivationPrecision::Q16>(k).row_bytes;
            // An arch without AMX or VNNI code (the scalar fallback) takes the
            // path above where these would: the work fits both.
            if (matmul_detail::amx_gemm_applies<T>(k, m))
                bytes = std::max(bytes, matmul_detail::amx_activation_bytes(k, m));
            else if (simd::active_arch_has_vnni() && matmul_detail::vnni_gemm_applies<T>(k, m))
                bytes = std::max(bytes, matmul_detail::VnniActivations::bytes(k, m, matmul_detail::int_gemm_group<T>()));
        }
    });
    if (!found) {
        const auto traits = ggml_type_traits(uint32_t(type));
        const std::string name = traits ? std::string(traits->name) : "#" + std::to_string(uint32_t(type));
        throw Error("matmul: no CPU kernel for weight type " + name + " in this build");
    }
    return bytes;
}

}  // namespace

bool matmul_supports(GgmlType weight_type) {
    bool found = false;
    EnabledQuantTypes::for_each([&]<class T>() {
        if constexpr (matmul_detail::HasUnpack<T>) found = found || T::id == weight_type;
    });
    return found;
}

bool q16_matmul_rounds_activations(GgmlType weight_type, int64_t k, int64_t m) {
    bool integer = false;
    EnabledQuantTypes::for_each([&]<class T>() {
        if (T::id == weight_type)
            integer = matmul_detail::amx_gemm_applies<T>(k, m) ||
                      (simd::active_arch_has_vnni() && matmul_detail::vnni_gemm_applies<T>(k, m));
    });
    return m < kQ16GemmMinTokens || integer;
}

size_t matmul_work_bytes(GgmlType weight_type, int64_t k, int64_t m, ActivationPrecision activations, int n_threads) {
    return checked_work_bytes(weight_type, k, m, activations, n_threads);
}

void matmul(const MatmulArgs& a, void* work, const ThreadTeam& team) {
    checked_work_bytes(a.weight_type, a.k, a.m, a.activations, team.nth);
    static auto kernel = simd::dispatch<simd::CpuArchs>(MatmulKernel{});
    kernel(a, work, team);
}

}  // namespace tessera::cpu
