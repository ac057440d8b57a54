#include "kernels/simd/archs.hpp"

namespace tessera::simd {
namespace {

struct ArchName {
    template <class Arch>
    std::string_view operator()(Arch) const {
        return Arch::name();
    }
};

}  // namespace

std::string_view active_arch_name() {
    static auto pick = xsimd::dispatch<CpuArchs>(ArchName{});
    return pick();
}

}  // namespace tessera::simd
