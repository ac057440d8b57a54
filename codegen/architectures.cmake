# The architectures tessera knows: every file in models/architectures/ defines
# one (file qwen3.cpp defines tessera::model::architectures::qwen3). The
# generated header declares them and lists them for find_architecture, so
# adding an architecture is writing its file.

file(GLOB TESSERA_ARCHITECTURE_SOURCES CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/models/architectures/*.cpp")
set(_declarations "")
set(_entries "")
foreach(_source IN LISTS TESSERA_ARCHITECTURE_SOURCES)
  get_filename_component(_stem "${_source}" NAME_WE)
  if(NOT _stem MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "models/architectures/${_stem}.cpp: an architecture's file is named like its variable "
                        "(lower case letters, digits and _)")
  endif()
  string(APPEND _declarations "extern const Architecture ${_stem};\n")
  list(APPEND _entries "&${_stem}")
endforeach()
list(JOIN _entries ", " TESSERA_ARCHITECTURE_ENTRIES)
set(TESSERA_ARCHITECTURE_DECLARATIONS "${_declarations}")
configure_file("${CMAKE_CURRENT_LIST_DIR}/architecture_list.hpp.in"
               "${TESSERA_GENERATED_DIR}/tessera/architecture_list.hpp" @ONLY)
