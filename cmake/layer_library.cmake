# tessera_layer_library(<layer> [PER_ARCH_KERNELS]): the static library
# tessera_<layer> of the layer's sources (cmake/layers.cmake), globbed, so a
# new file needs no list. Before it compiles, cmake/check_layers.cmake
# checks that none of the layer's files includes a header of a higher layer.
# PER_ARCH_KERNELS: a source that ends with explicit instantiations for
# TESSERA_SIMD_ARCH is compiled once per arch of the build
# (codegen/simd_kernels.cmake); the others once, without arch flags. That
# is read when CMake configures, which a new file triggers; an existing
# source that gains or loses its instantiations needs `cmake` run again.
function(tessera_layer_library layer)
  cmake_parse_arguments(PARSE_ARGV 1 arg "PER_ARCH_KERNELS" "" "")
  set(target tessera_${layer})
  add_library(${target} STATIC)
  tessera_layer_files(sources "${PROJECT_SOURCE_DIR}" ${layer} cpp)
  foreach(source IN LISTS sources)
    if(arg_PER_ARCH_KERNELS)
      file(STRINGS "${source}" per_arch REGEX "<TESSERA_SIMD_ARCH>")
    endif()
    if(arg_PER_ARCH_KERNELS AND per_arch)
      tessera_add_simd_kernels(${target} "${source}")
    else()
      target_sources(${target} PRIVATE "${source}")
    endif()
  endforeach()
  target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>"
                                              "$<BUILD_INTERFACE:${TESSERA_GENERATED_DIR}>"
                                              "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tessera>")
  target_link_libraries(${target} PUBLIC tessera_flags)
  tessera_layer_check(${target} ${layer})
endfunction()

# tessera_layer_check(<target> <layer>): <target> builds after the check of
# the layer's includes, which runs again when one of its files changes or a
# file is added (the glob is checked at every build).
function(tessera_layer_check target layer)
  tessera_layer_files(files "${PROJECT_SOURCE_DIR}" ${layer} cpp hpp h inc)
  set(stamp "${PROJECT_BINARY_DIR}/layers/${layer}.checked")
  add_custom_command(
    OUTPUT "${stamp}"
    COMMAND "${CMAKE_COMMAND}" "-DROOT=${PROJECT_SOURCE_DIR}" -DLAYER=${layer} "-DSTAMP=${stamp}"
            -P "${PROJECT_SOURCE_DIR}/cmake/check_layers.cmake"
    DEPENDS ${files} "${PROJECT_SOURCE_DIR}/cmake/check_layers.cmake" "${PROJECT_SOURCE_DIR}/cmake/layers.cmake"
    COMMENT "Checking that layer ${layer} includes no higher layer"
    VERBATIM)
  add_custom_target(${target}_layer_check DEPENDS "${stamp}")
  add_dependencies(${target} ${target}_layer_check)
endfunction()
