# Vulkan compute shaders, compiled to SPIR-V by glslangValidator at build
# time and embedded in tessera_core (graph/vulkan/shader_library.hpp).
#
#   shaders/*.comp          one shader each, named by its file stem
#                           (*_coopmat.comp: only where the glslang found
#                           compiles GL_NV_cooperative_matrix)
#   shaders/quant/*.glsl    skeletons of per-weight-type shaders (matvec,
#                           matmul, get_rows, ...): one variant per enabled
#                           quant type that has a GLSL part,
#                           kernels/quant/types/<type>.glsl (its block layout
#                           and dequantize functions), named <stem>_<type>
#   shaders/quant/*_coopmat.glsl
#                           skeletons for the tensor cores: only when the
#                           glslang found compiles them (coopmat_probe.cmake),
#                           and not for F32 weights (they keep fp32 math;
#                           these round to fp16)
#   shaders/quant/*_workgroup_coopmat.glsl
#                           the same with cooperative matrices of workgroup
#                           scope, for the types whose part has a line
#                           `#define MATMUL_WORKGROUP_SCOPE`: compiled for
#                           SPIR-V 1.6 and rewritten into KHR cooperative
#                           matrices by tessera_spirv_coopmat_khr
#                           (spirv_coopmat_khr.hpp)
#   matvec_idot_<type>      matvec.glsl with MV_IDOT defined (x rounded to
#                           8 bits, packed integer dot products): for the
#                           types whose GLSL part has an `#ifdef MV_IDOT`
#                           section, where the glslang found compiles
#                           int_dot.glsl (int_dot_probe.cmake)
#   matvec_staged_idot_<type>
#                           matvec.glsl with MV_IDOT and MV_STAGED defined
#                           (x staged in shared memory, whole units per
#                           invocation: shaders/matvec_staged.glsl), for the
#                           types with matvec_idot_<type> whose part also
#                           has an `#ifdef MV_STAGED` section
#   matvec_staged_idot16_<type>
#                           the same with 16-bit x (MV_X16 too: two signed
#                           bytes a value, ActivationPrecision::Q16)
#   matvec_staged_<type>    the same with F32 x (MV_STAGED and
#                           MV_STAGED_F32), for the types whose part has
#                           both sections
#
# Each variant is a generated two-line wrapper that includes the type's part
# and then the skeleton; no shader source is copied per type.

set(_shader_dir "${PROJECT_SOURCE_DIR}/shaders")
set(_types_dir "${PROJECT_SOURCE_DIR}/kernels/quant/types")
set(_out_dir "${TESSERA_GENERATED_DIR}/shaders")
file(MAKE_DIRECTORY "${_out_dir}")

file(GLOB _plain_shaders CONFIGURE_DEPENDS "${_shader_dir}/*.comp")
file(GLOB _skeletons CONFIGURE_DEPENDS "${_shader_dir}/quant/*.glsl")
include("${CMAKE_CURRENT_LIST_DIR}/coopmat_probe.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/int_dot_probe.cmake")
if(NOT TESSERA_VULKAN_COOPMAT)
  list(FILTER _plain_shaders EXCLUDE REGEX "_coopmat\\.comp$")
  list(FILTER _skeletons EXCLUDE REGEX "_coopmat\\.glsl$")
endif()

set(TESSERA_SHADER_HEADERS "")
set(_table_includes "")
set(_table_entries "")

# _tessera_variant(<name> <prelude> <type stem> <skeleton kind>): compiles a
# wrapper that includes the type's part and then the skeleton, after
# <prelude> (defines that both see).
function(_tessera_variant name prelude stem kind)
  set(wrapper "${_out_dir}/${name}.comp")
  file(CONFIGURE OUTPUT "${wrapper}" CONTENT
       "#version 450\n#extension GL_GOOGLE_include_directive : require\n${prelude}#include \"${stem}.glsl\"\n#include \"quant/${kind}.glsl\"\n")
  if(kind MATCHES "_workgroup_coopmat$")
    _tessera_compile_khr_shader(${name} "${wrapper}")
  else()
    _tessera_compile_shader(${name} "${wrapper}")
  endif()
  set(TESSERA_SHADER_HEADERS ${TESSERA_SHADER_HEADERS} PARENT_SCOPE)
endfunction()

# The rewriter of NV cooperative matrices into KHR ones: a build-time tool.
if(TESSERA_VULKAN_COOPMAT)
  add_executable(tessera_spirv_coopmat_khr "${CMAKE_CURRENT_LIST_DIR}/spirv_coopmat_khr_main.cpp"
                                           "${CMAKE_CURRENT_LIST_DIR}/spirv_coopmat_khr.cpp")
  target_include_directories(tessera_spirv_coopmat_khr PRIVATE "${PROJECT_SOURCE_DIR}")
endif()

# _tessera_compile_khr_shader(<name> <source>): as _tessera_compile_shader,
# for SPIR-V 1.6 (the NVIDIA driver's compiler failed on these shaders as
# SPIR-V 1.5: docs/vulkan.md#workgroup-scope) and through the rewriter.
function(_tessera_compile_khr_shader name source)
  set(header "${_out_dir}/${name}.h")
  set(spirv "${_out_dir}/${name}.nv.spv")
  add_custom_command(
    OUTPUT "${spirv}"
    COMMAND Vulkan::glslangValidator --target-env vulkan1.3 -I${_shader_dir} -I${_types_dir}
            --depfile "${spirv}.d" -o "${spirv}" "${source}"
    DEPENDS "${source}"
    DEPFILE "${spirv}.d"
    COMMENT "glslang: ${name}"
    VERBATIM)
  add_custom_command(
    OUTPUT "${header}"
    COMMAND tessera_spirv_coopmat_khr "${spirv}" "${header}" tessera_spv_${name}
    DEPENDS "${spirv}" tessera_spirv_coopmat_khr
    COMMENT "KHR cooperative matrices: ${name}"
    VERBATIM)
  set(TESSERA_SHADER_HEADERS ${TESSERA_SHADER_HEADERS} "${header}" PARENT_SCOPE)
endfunction()

# _tessera_compile_shader(<name> <source>): <name>.h holding tessera_spv_<name>.
function(_tessera_compile_shader name source)
  set(header "${_out_dir}/${name}.h")
  add_custom_command(
    OUTPUT "${header}"
    COMMAND Vulkan::glslangValidator --target-env vulkan1.2 -I${_shader_dir} -I${_types_dir}
            --vn tessera_spv_${name} --depfile "${header}.d" -o "${header}" "${source}"
    DEPENDS "${source}"
    DEPFILE "${header}.d"
    COMMENT "glslang: ${name}"
    VERBATIM)
  set(TESSERA_SHADER_HEADERS ${TESSERA_SHADER_HEADERS} "${header}" PARENT_SCOPE)
endfunction()

set(TESSERA_SHADER_NAMES "")
foreach(_src IN LISTS _plain_shaders)
  get_filename_component(_name "${_src}" NAME_WE)
  _tessera_compile_shader(${_name} "${_src}")
  list(APPEND TESSERA_SHADER_NAMES ${_name})
endforeach()

set(TESSERA_VULKAN_QUANT_TYPES "")
foreach(_type IN LISTS TESSERA_ENABLED_QUANT_TYPES)
  string(TOLOWER "${_type}" _stem)
  if(NOT EXISTS "${_types_dir}/${_stem}.glsl")
    continue()
  endif()
  list(APPEND TESSERA_VULKAN_QUANT_TYPES ${_type})
  file(STRINGS "${_types_dir}/${_stem}.glsl" _workgroup_scope REGEX "^#define MATMUL_WORKGROUP_SCOPE")
  foreach(_skeleton IN LISTS _skeletons)
    get_filename_component(_kind "${_skeleton}" NAME_WE)
    if(_kind MATCHES "_coopmat$" AND _type STREQUAL "F32")
      continue()
    endif()
    if(_kind MATCHES "_workgroup_coopmat$" AND NOT _workgroup_scope)
      continue()
    endif()
    _tessera_variant("${_kind}_${_stem}" "" ${_stem} ${_kind})
    list(APPEND TESSERA_SHADER_NAMES "${_kind}_${_stem}")
  endforeach()
  # Read at configure time: an edit of the type's part configures again.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_types_dir}/${_stem}.glsl")
  file(STRINGS "${_types_dir}/${_stem}.glsl" _idot REGEX "^#ifdef MV_IDOT")
  file(STRINGS "${_types_dir}/${_stem}.glsl" _wide_chunk REGEX "^#define MV_QK")
  if(TESSERA_VULKAN_INT_DOT AND _idot AND _wide_chunk)  # the chunked matvec's mv_qdot
    _tessera_variant("matvec_idot_${_stem}" "#define MV_IDOT 1\n" ${_stem} matvec)
    list(APPEND TESSERA_SHADER_NAMES "matvec_idot_${_stem}")
  endif()
  file(STRINGS "${_types_dir}/${_stem}.glsl" _staged REGEX "^#ifdef MV_STAGED *$")
  file(STRINGS "${_types_dir}/${_stem}.glsl" _staged_f32 REGEX "^#ifdef MV_STAGED_F32")
  if(_staged AND _staged_f32)
    _tessera_variant("matvec_staged_${_stem}" "#define MV_STAGED 1\n#define MV_STAGED_F32 1\n" ${_stem} matvec)
    list(APPEND TESSERA_SHADER_NAMES "matvec_staged_${_stem}")
  endif()
  if(_staged AND _idot AND TESSERA_VULKAN_INT_DOT)
    _tessera_variant("matvec_staged_idot_${_stem}" "#define MV_IDOT 1\n#define MV_STAGED 1\n" ${_stem} matvec)
    list(APPEND TESSERA_SHADER_NAMES "matvec_staged_idot_${_stem}")
    _tessera_variant("matvec_staged_idot16_${_stem}" "#define MV_IDOT 1\n#define MV_STAGED 1\n#define MV_X16 1\n"
                     ${_stem} matvec)
    list(APPEND TESSERA_SHADER_NAMES "matvec_staged_idot16_${_stem}")
  endif()
endforeach()
message(STATUS "tessera Vulkan weight types: ${TESSERA_VULKAN_QUANT_TYPES}")

foreach(_name IN LISTS TESSERA_SHADER_NAMES)
  string(APPEND _table_includes "#include \"shaders/${_name}.h\"\n")
  string(APPEND _table_entries "    {\"${_name}\", tessera_spv_${_name}},\n")
endforeach()
set(TESSERA_SHADER_TABLE_INCLUDES "${_table_includes}")
set(TESSERA_SHADER_TABLE_ENTRIES "${_table_entries}")
configure_file("${CMAKE_CURRENT_LIST_DIR}/shader_table.cpp.in" "${_out_dir}/shader_table.cpp" @ONLY)
set(TESSERA_SHADER_TABLE "${_out_dir}/shader_table.cpp")
