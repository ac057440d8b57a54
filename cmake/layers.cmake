# The layers of tessera, lowest first, and the folders each one holds. A
# file belongs to the layer of the longest folder that contains it
# (graph/cpu/ is the backends', the rest of graph/ the graph layer's). A
# layer's files may include headers of their own layer and of the layers
# below it, never above: cmake/check_layers.cmake checks it at build time.
# Included by the build (CMakeLists.txt) and by that script.

set(TESSERA_LAYERS kernels graph ops backends models tools)
set(TESSERA_LAYER_FOLDERS_kernels support kernels)  # quant types, CPU kernels, support
set(TESSERA_LAYER_FOLDERS_graph graph)              # tensors, graphs, OpDef, executor, the Backend interface
set(TESSERA_LAYER_FOLDERS_ops ops)                  # one builder and OpDef per op
set(TESSERA_LAYER_FOLDERS_backends graph/cpu graph/vulkan graph/choice shaders)
set(TESSERA_LAYER_FOLDERS_models models)
set(TESSERA_LAYER_FOLDERS_tools tools)

# tessera_layer_of(<out_var> <path>): the layer of a path relative to the
# source root ("graph/vulkan/recorder.hpp" -> backends), or "" outside them.
function(tessera_layer_of out_var path)
  set(best "")
  set(best_length 0)
  foreach(layer IN LISTS TESSERA_LAYERS)
    foreach(folder IN LISTS TESSERA_LAYER_FOLDERS_${layer})
      string(LENGTH "${folder}/" length)
      string(SUBSTRING "${path}" 0 ${length} head)
      if(head STREQUAL "${folder}/" AND length GREATER best_length)
        set(best ${layer})
        set(best_length ${length})
      endif()
    endforeach()
  endforeach()
  set(${out_var} "${best}" PARENT_SCOPE)
endfunction()

# tessera_layer_files(<out_var> <root> <layer> <extension>...): the layer's
# files with those extensions (e.g. cpp hpp), absolute. In a build the glob
# is checked again at every build, so that a new file is found.
function(tessera_layer_files out_var root layer)
  set(configure_depends "")
  if(NOT CMAKE_SCRIPT_MODE_FILE)
    set(configure_depends CONFIGURE_DEPENDS)
  endif()
  set(found "")
  foreach(folder IN LISTS TESSERA_LAYER_FOLDERS_${layer})
    set(patterns "")
    foreach(extension IN LISTS ARGN)
      list(APPEND patterns "${root}/${folder}/*.${extension}")
    endforeach()
    file(GLOB_RECURSE files ${configure_depends} RELATIVE "${root}" ${patterns})
    foreach(file IN LISTS files)
      tessera_layer_of(owner "${file}")
      if(owner STREQUAL layer)
        list(APPEND found "${root}/${file}")
      endif()
    endforeach()
  endforeach()
  list(SORT found)
  set(${out_var} ${found} PARENT_SCOPE)
endfunction()
