#include "kernels/simd/archs.hpp"

#include <string>
#include <type_traits>

#include "kernels/simd/dispatch.hpp"

namespace tessera::simd {
namespace {

// The arch's name, with "+vnni" where its kernels have VNNI code under an
// xsimd arch's name (a native build for a CPU with VNNI: xsimd 8.1 calls
// that arch avx512bw).
struct ArchName {
    template <class Arch>
    std::string operator()(Arch) const {
        if constexpr (has_vnni<Arch> && !std::is_base_of_v<Avx512Vnni, Arch>) return std::string(Arch::name()) + "+vnni";
        return Arch::name();
    }
};

struct HasVnni {
    template <class Arch>
    bool operator()(Arch) const {
        return has_vnni<Arch>;
    }
};

}  // namespace

std::string_view active_arch_name() {
    static const std::string name = dispatch<CpuArchs>(ArchName{})();
    return name;
}

bool active_arch_has_vnni() {
    static const bool vnni = dispatch<CpuArchs>(HasVnni{})();
    return vnni;
}

}  // namespace tessera::simd
