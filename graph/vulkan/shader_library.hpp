// The SPIR-V of every compute shader this build compiled (shaders/ and the
// per-quant-type variants codegen/shaders.cmake generates), embedded in the
// binary: nothing is compiled at run time.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace tessera {

struct ShaderBinary {
    std::string_view name;  // e.g. "binary", "matvec_q4_0"
    std::span<const uint32_t> spirv;
};

std::span<const ShaderBinary> shader_binaries();  // generated
// nullptr when this build has no shader of that name.
const ShaderBinary* find_shader(std::string_view name);

}  // namespace tessera
