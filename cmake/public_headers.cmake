# The headers a user of the library includes (the roots below) and every
# project header they include, found by following #include "..." lines at
# configure time, so the installed set stays closed as headers change.
# Internal headers that no public header reaches are not installed.

set(TESSERA_PUBLIC_HEADER_ROOTS
  graph/graph.hpp graph/executor.hpp graph/cpu/cpu_backend.hpp graph/choice/backend_choice.hpp graph/vulkan/vulkan_error.hpp
  ops/ops.hpp kernels/quant/registry.hpp
  models/model.hpp models/session.hpp models/sampler.hpp
  models/tokenizer/tokenizer.hpp models/tokenizer/stream_decoder.hpp
  support/error.hpp)

# Sets <out_var> to the closure of the roots: paths relative to the source
# root or to TESSERA_GENERATED_DIR (headers generated at configure time).
function(tessera_public_headers out_var)
  set(pending ${TESSERA_PUBLIC_HEADER_ROOTS})
  set(found "")
  while(pending)
    list(POP_FRONT pending header)
    if(header IN_LIST found)
      continue()
    endif()
    list(APPEND found "${header}")
    if(EXISTS "${PROJECT_SOURCE_DIR}/${header}")
      set(path "${PROJECT_SOURCE_DIR}/${header}")
    elseif(EXISTS "${TESSERA_GENERATED_DIR}/${header}")
      set(path "${TESSERA_GENERATED_DIR}/${header}")
    else()
      message(FATAL_ERROR "public header ${header} is neither in the source tree nor generated at configure time")
    endif()
    set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${path}")
    file(STRINGS "${path}" includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[^\"]*\"([^\"]+)\".*$" "\\1" included "${line}")
      list(APPEND pending "${included}")
    endforeach()
  endwhile()
  list(SORT found)
  set(${out_var} ${found} PARENT_SCOPE)
endfunction()
