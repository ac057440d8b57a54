# Build-time selection of quant types.
#
# Every header in kernels/quant/types/ defines one type (file q4_k.hpp defines
# struct Q4_K). TESSERA_QUANT_TYPES picks which of them get kernels; "all"
# takes every definition found. F32 is always included (norm weights and
# activations are F32). The result is a generated header with the type list
# that the registry, kernels and tests are instantiated from.

file(GLOB _type_headers CONFIGURE_DEPENDS RELATIVE "${PROJECT_SOURCE_DIR}/kernels/quant/types"
     "${PROJECT_SOURCE_DIR}/kernels/quant/types/*.hpp")
set(TESSERA_DEFINED_QUANT_TYPES "")
foreach(_h IN LISTS _type_headers)
  string(REGEX REPLACE "\\.hpp$" "" _stem "${_h}")
  string(TOUPPER "${_stem}" _name)
  list(APPEND TESSERA_DEFINED_QUANT_TYPES "${_name}")
endforeach()
list(SORT TESSERA_DEFINED_QUANT_TYPES)

set(TESSERA_QUANT_TYPES "all" CACHE STRING
    "Quant types to build kernels for: 'all' or a ;-list of names (e.g. F16;Q4_0;Q4_K)")

if(TESSERA_QUANT_TYPES STREQUAL "all")
  set(_selected ${TESSERA_DEFINED_QUANT_TYPES})
else()
  string(TOUPPER "${TESSERA_QUANT_TYPES}" _selected)
  string(REPLACE "," ";" _selected "${_selected}")
  foreach(_name IN LISTS _selected)
    if(NOT _name IN_LIST TESSERA_DEFINED_QUANT_TYPES)
      message(FATAL_ERROR "TESSERA_QUANT_TYPES names '${_name}', which has no definition in "
                          "kernels/quant/types/. Known: ${TESSERA_DEFINED_QUANT_TYPES}")
    endif()
  endforeach()
endif()
list(PREPEND _selected F32)
list(REMOVE_DUPLICATES _selected)
set(TESSERA_ENABLED_QUANT_TYPES ${_selected})
message(STATUS "tessera quant types: ${TESSERA_ENABLED_QUANT_TYPES}")

set(_includes "")
set(_names "")
foreach(_name IN LISTS TESSERA_ENABLED_QUANT_TYPES)
  string(TOLOWER "${_name}" _stem)
  string(APPEND _includes "#include \"kernels/quant/types/${_stem}.hpp\"\n")
  list(APPEND _names "${_name}")
endforeach()
list(JOIN _names ", " TESSERA_QUANT_TYPE_LIST)
list(JOIN TESSERA_ENABLED_QUANT_TYPES ";" TESSERA_QUANT_TYPES_STRING)
list(JOIN TESSERA_DEFINED_QUANT_TYPES ";" TESSERA_DEFINED_QUANT_TYPES_STRING)
set(TESSERA_QUANT_TYPE_INCLUDES "${_includes}")

set(TESSERA_GENERATED_DIR "${PROJECT_BINARY_DIR}/generated")
configure_file("${CMAKE_CURRENT_LIST_DIR}/enabled_quant_types.hpp.in"
               "${TESSERA_GENERATED_DIR}/tessera/enabled_quant_types.hpp" @ONLY)
