#include "kernels/simd/archs.hpp"

#include "kernels/simd/dispatch.hpp"

namespace tessera::simd {
namespace {

struct ArchName {
    template <class Arch>
    std::string_view operator()(Arch) const {
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
    static const std::string_view name = dispatch<CpuArchs>(ArchName{})();
    return name;
}

bool active_arch_has_vnni() {
    static const bool vnni = dispatch<CpuArchs>(HasVnni{})();
    return vnni;
}

}  // namespace tessera::simd
