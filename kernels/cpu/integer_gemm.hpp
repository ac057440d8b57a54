// The switch over the integer paths of the several-token Q16 matmul: Intel's
// AMX tiles (matmul/amx_gemm.hpp) and AVX-512 VNNI's 16-bit dot products
// (matmul/vnni_gemm.hpp). Both round x to 16-bit blocks, as generation does;
// with them off, prompts take the F32 GEMM on x as it is
// (matmul/packed_gemm.hpp), which the tests and benchmarks compare them with.
#pragma once

namespace tessera::cpu {

// True unless allow_integer_gemm(false) turned the integer paths off.
bool integer_gemm_allowed();

// Turns the integer paths off (or back on) for every later matmul. Not for
// use while a plan is live: its work buffers were sized for one path.
void allow_integer_gemm(bool allowed);

}  // namespace tessera::cpu
