# Fails when a file of layer LAYER includes a header of a higher layer
# (cmake/layers.cmake), naming the file, the line and the rule:
#   cmake -DROOT=<source root> -DLAYER=<layer> [-DSTAMP=<file>] -P check_layers.cmake
# The build runs it for every layer before compiling the layer's library,
# and writes STAMP when the layer passes. Only #include "..." lines are
# read; a path outside the layers' folders (a generated header, a system
# header) is not checked.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/layers.cmake")

if(NOT DEFINED ROOT OR NOT DEFINED LAYER)
  message(FATAL_ERROR "usage: cmake -DROOT=<source root> -DLAYER=<layer> [-DSTAMP=<file>] -P check_layers.cmake")
endif()
list(FIND TESSERA_LAYERS "${LAYER}" own_rank)
if(own_rank LESS 0)
  message(FATAL_ERROR "check_layers: '${LAYER}' is not a layer (${TESSERA_LAYERS})")
endif()
list(JOIN TESSERA_LAYERS " < " order)

tessera_layer_files(files "${ROOT}" "${LAYER}" cpp hpp h inc)
set(violations "")
foreach(file IN LISTS files)
  file(READ "${file}" rest)
  file(RELATIVE_PATH shown "${ROOT}" "${file}")
  set(line 1)
  while(TRUE)
    string(REGEX MATCH "(^|\n)[ \t]*#[ \t]*include[ \t]*\"([^\"\n]+)\"" directive "${rest}")
    if(directive STREQUAL "")
      break()
    endif()
    set(included "${CMAKE_MATCH_2}")
    string(FIND "${rest}" "${directive}" at)
    string(SUBSTRING "${rest}" 0 ${at} before)
    string(REGEX MATCHALL "\n" newlines "${before}")
    list(LENGTH newlines n)
    math(EXPR line "${line} + ${n}")
    if(directive MATCHES "^\n")
      math(EXPR line "${line} + 1")
    endif()
    tessera_layer_of(target "${included}")
    if(NOT target STREQUAL "")
      list(FIND TESSERA_LAYERS "${target}" target_rank)
      if(target_rank GREATER own_rank)
        string(APPEND violations "${shown}:${line}: #include \"${included}\" reaches up from layer ${LAYER} "
                                 "to layer ${target}\n")
      endif()
    endif()
    string(LENGTH "${directive}" length)
    math(EXPR next "${at} + ${length}")
    string(SUBSTRING "${rest}" ${next} -1 rest)
  endwhile()
endforeach()

if(NOT violations STREQUAL "")
  message(FATAL_ERROR "${violations}A layer may include only its own headers and those of the layers below it "
                      "(${order}; folders in cmake/layers.cmake).")
endif()
if(DEFINED STAMP)
  file(WRITE "${STAMP}" "layer ${LAYER}: no upward includes\n")
endif()
