// Whether this process may multiply on Intel's AMX tiles (AMX-INT8): the
// build targets them (a native build on such a CPU), the CPU has them, and
// Linux granted the tile state (a process must ask for it once, with
// arch_prctl; without it the first tile instruction faults).
#pragma once

#include <cstdint>

// Defined where this translation unit's flags target AMX-INT8 (a native
// build on such a CPU): only then is there AMX code to run.
#if defined(__AMX_TILE__) && defined(__AMX_INT8__) && defined(__AVX512F__)
#define TESSERA_AMX_BUILT 1
#endif

namespace tessera::cpu {

// The 64 bytes ldtilecfg reads (palette 1): each tile's rows and bytes a row.
struct alignas(64) AmxTileConfig {
    uint8_t palette = 1, start_row = 0;
    uint8_t reserved[14] = {};
    uint16_t bytes_per_row[16] = {};
    uint8_t rows[16] = {};
};

// True when the kernels compiled AMX code, the CPU reports AMX-TILE and
// AMX-INT8, the kernel granted the tile state, and allow_integer_gemm
// (integer_gemm.hpp) has not turned the integer paths off. The first call
// asks the kernel.
bool amx_usable();

}  // namespace tessera::cpu
