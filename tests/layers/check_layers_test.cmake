# The include check of the layers (cmake/check_layers.cmake) on small file
# trees written here:
#   cmake -DCHECKER=<check_layers.cmake> -DWORK_DIR=<scratch dir> -DCASE=<case> -P check_layers_test.cmake
# CASE upward: a file that includes a higher layer fails the check, which
#              names the file, the line and the rule.
# CASE lower:  files that include their own and lower layers pass (a
#              backend's file in graph/cpu/ may include ops/, which the rest
#              of graph/ may not).
cmake_minimum_required(VERSION 3.25)

set(root "${WORK_DIR}/${CASE}")
file(REMOVE_RECURSE "${root}")

# run_check(<layer> <result var> <output var>)
function(run_check layer result_var output_var)
  execute_process(COMMAND "${CMAKE_COMMAND}" "-DROOT=${root}" -DLAYER=${layer} -P "${CHECKER}"
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  set(${result_var} "${result}" PARENT_SCOPE)
  set(${output_var} "${output}" PARENT_SCOPE)
endfunction()

if(CASE STREQUAL "upward")
  file(WRITE "${root}/graph/executor.cpp"
       "// The executor.\n#include \"graph/executor.hpp\"\n\n#include \"ops/transfer.hpp\"\n")
  file(WRITE "${root}/graph/executor.hpp" "#pragma once\n#include \"graph/tensor.hpp\"\n")
  run_check(graph result output)
  if(result EQUAL 0)
    message(FATAL_ERROR "graph/executor.cpp includes ops/, yet the check of layer graph passed:\n${output}")
  endif()
  string(REGEX REPLACE "[ \n]+" " " output "${output}")  # CMake wraps the message
  foreach(expected "graph/executor.cpp:4: #include \"ops/transfer.hpp\" reaches up from layer graph to layer ops"
                   "A layer may include only its own headers and those of the layers below it")
    string(FIND "${output}" "${expected}" at)
    if(at LESS 0)
      message(FATAL_ERROR "the check's message lacks '${expected}':\n${output}")
    endif()
  endforeach()
elseif(CASE STREQUAL "lower")
  file(WRITE "${root}/kernels/cpu/add.cpp" "#include \"kernels/cpu/add.hpp\"\n#include \"support/error.hpp\"\n")
  file(WRITE "${root}/graph/tensor.hpp" "#pragma once\n#include \"kernels/quant/ggml_type.hpp\"\n#include <vector>\n")
  file(WRITE "${root}/ops/add.cpp" "#include \"ops/add.hpp\"\n#include \"graph/graph.hpp\"\n")
  file(WRITE "${root}/graph/cpu/kernels/add.cpp" "#include \"graph/cpu/cpu_kernel.hpp\"\n#include \"ops/add.hpp\"\n")
  file(WRITE "${root}/tools/run.cpp" "#include \"models/session.hpp\"\n#include \"graph/vulkan/vulkan_backend.hpp\"\n")
  foreach(layer kernels graph ops backends tools)
    run_check(${layer} result output)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "the check of layer ${layer} failed on includes of its own and lower layers:\n${output}")
    endif()
  endforeach()
else()
  message(FATAL_ERROR "CASE must be upward or lower, not '${CASE}'")
endif()
