// Whether this process may multiply on Intel's AMX tiles (AMX-INT8): the
// build targets them (a native build on such a CPU), the CPU has them, and
// Linux granted the tile state (a process must ask for it once, with
// arch_prctl; without it the first tile instruction faults).
#pragma once

namespace tessera::cpu {

// True when the kernels compiled AMX code, the CPU reports AMX-TILE and
// AMX-INT8, the kernel granted the tile state, and allow_amx has not turned
// them off. The first call asks the kernel.
bool amx_usable();

// Turns the AMX kernels off (or back on) for every later matmul: the tests
// and benchmarks compare them with the F32 GEMM of CPUs without them. Not for
// use while a plan is live: its work buffers were sized for one path.
void allow_amx(bool allowed);

}  // namespace tessera::cpu
