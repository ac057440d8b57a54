#include "kernels/cpu/amx.hpp"

#include "kernels/cpu/integer_gemm.hpp"

#ifdef TESSERA_AMX_BUILT
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tessera::cpu {
namespace {

bool granted() {
#ifdef TESSERA_AMX_BUILT
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
    constexpr unsigned kAmxTile = 1u << 24, kAmxInt8 = 1u << 25;  // CPUID.(7,0):EDX
    if ((edx & kAmxTile) == 0 || (edx & kAmxInt8) == 0) return false;
    constexpr long kRequestPermission = 0x1023;  // ARCH_REQ_XCOMP_PERM
    constexpr long kTileData = 18;               // XFEATURE_XTILEDATA
    return syscall(SYS_arch_prctl, kRequestPermission, kTileData) == 0;
#else
    return false;
#endif
}

}  // namespace

bool amx_usable() {
    static const bool usable = granted();
    return usable && integer_gemm_allowed();
}

}  // namespace tessera::cpu
