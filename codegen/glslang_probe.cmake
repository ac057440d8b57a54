# tessera_glslang_probe(<var> <name> <source> <what>): sets <var> ON where the
# glslangValidator found compiles the compute shader <source> (it may include
# the files of kernels/quant/types/), else OFF, and reports it as <what>.
include_guard(GLOBAL)

function(tessera_glslang_probe var name source what)
  set(probe "${CMAKE_CURRENT_BINARY_DIR}/${name}.comp")
  file(WRITE "${probe}" "${source}")
  execute_process(
    COMMAND "${Vulkan_GLSLANG_VALIDATOR_EXECUTABLE}" --target-env vulkan1.2
            -I${PROJECT_SOURCE_DIR}/kernels/quant/types -o "${probe}.spv" "${probe}"
    RESULT_VARIABLE result
    OUTPUT_QUIET ERROR_QUIET)
  if(result EQUAL 0)
    set(found ON)
  else()
    set(found OFF)
  endif()
  set(${var} ${found} PARENT_SCOPE)
  message(STATUS "tessera ${what}: ${found}")
endfunction()
