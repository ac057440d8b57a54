// Rewrites a SPIR-V module's SPV_NV_cooperative_matrix types and
// instructions into SPV_KHR_cooperative_matrix ones, at build time.
//
// Why: workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2) are
// KHR types, which Debian 12's glslang 12 cannot emit; it does emit the NV
// ones, whose scope operand it leaves to the shader. The shader is written
// with GL_NV_cooperative_matrix and gl_ScopeWorkgroup and rewritten here:
//   - OpTypeCooperativeMatrixNV gains its Use (A, B or accumulator), read
//     from the multiplies it takes part in (a type never multiplied is an
//     accumulator);
//   - loads and stores take a MemoryLayout constant for their ColumnMajor
//     boolean and their operands in the KHR order;
//   - the capability and extension change, and a module with a matrix of
//     Workgroup scope declares SPV_NV_cooperative_matrix2 too.
// Integer matrices (whose multiplies need signedness operands) and a type
// multiplied in two roles are refused.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::codegen {

struct SpirvRewriteError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::vector<uint32_t> rewrite_coopmat_khr(std::span<const uint32_t> module);

// The C header glslang's --vn writes: `const uint32_t <name>[] = {...};`.
std::string spirv_header(std::span<const uint32_t> module, const std::string& name);

}  // namespace tessera::codegen
