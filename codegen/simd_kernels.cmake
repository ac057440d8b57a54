# tessera_add_simd_kernels(<target> <source>...)
#
# Adds CPU kernel sources that are written once as templates over the xsimd
# arch. Each source ends with explicit instantiations for TESSERA_SIMD_ARCH.
# Native builds compile each source once (TESSERA_SIMD_ARCH = the build
# machine's xsimd::default_arch). Portable builds generate one wrapper per
# (source, arch) that defines TESSERA_SIMD_ARCH and includes the source, and
# compile it with that arch's flags; the dispatching entry points live in
# files compiled without arch flags. The archs are those of simd::CpuArchs
# (kernels/simd/archs.hpp), but for its scalar fallback.

set(_tessera_avx512_flags "-mavx512f -mavx512cd -mavx512dq -mavx512bw -mavx512vl -mavx2 -mfma -mf16c")
set(TESSERA_SIMD_ARCHS
    "tessera::simd::Avx512Vnni|${_tessera_avx512_flags} -mavx512vnni"
    "xsimd::avx512bw|${_tessera_avx512_flags}"
    "xsimd::fma3<xsimd::avx2>|-mavx2 -mfma -mf16c"
    "xsimd::sse4_2|-msse4.2")

function(tessera_add_simd_kernels target)
  foreach(src IN LISTS ARGN)
    get_filename_component(abs "${src}" ABSOLUTE)
    if(NOT TESSERA_PORTABLE)
      target_sources(${target} PRIVATE "${abs}")
      set_source_files_properties("${abs}" TARGET_DIRECTORY ${target} PROPERTIES COMPILE_DEFINITIONS "TESSERA_SIMD_ARCH=xsimd::default_arch")
      continue()
    endif()
    get_filename_component(stem "${src}" NAME_WE)
    foreach(entry IN LISTS TESSERA_SIMD_ARCHS)
      string(REPLACE "|" ";" parts "${entry}")
      list(GET parts 0 arch)
      list(GET parts 1 flags)
      string(REGEX REPLACE "^(xsimd|tessera::simd)::" "" arch_id "${arch}")
      string(TOLOWER "${arch_id}" arch_id)
      string(REGEX REPLACE "[^a-z0-9]+" "_" arch_id "${arch_id}")
      set(wrapper "${TESSERA_GENERATED_DIR}/simd/${stem}_${arch_id}.cpp")
      file(CONFIGURE OUTPUT "${wrapper}" CONTENT
           "// Generated: ${src} for ${arch}.\n#define TESSERA_SIMD_ARCH ${arch}\n#include \"${abs}\"\n")
      separate_arguments(flag_list UNIX_COMMAND "${flags}")
      set_source_files_properties("${wrapper}" TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "${flag_list}")
      target_sources(${target} PRIVATE "${wrapper}")
    endforeach()
  endforeach()
endfunction()
