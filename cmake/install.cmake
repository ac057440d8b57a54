# Install rules and the CMake package: after `cmake --install`, a project
# uses find_package(tessera CONFIG) and links tessera::tessera, which links
# every layer's library (tessera::tessera_kernels ... tessera::tessera_models).
include(CMakePackageConfigHelpers)
include(cmake/public_headers.cmake)

set(TESSERA_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/tessera")
set(TESSERA_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/tessera")

tessera_public_headers(_public_headers)
foreach(_header IN LISTS _public_headers)
  cmake_path(GET _header PARENT_PATH _dir)
  if(EXISTS "${PROJECT_SOURCE_DIR}/${_header}")
    install(FILES "${PROJECT_SOURCE_DIR}/${_header}" DESTINATION "${TESSERA_INSTALL_INCLUDEDIR}/${_dir}")
  else()
    install(FILES "${TESSERA_GENERATED_DIR}/${_header}" DESTINATION "${TESSERA_INSTALL_INCLUDEDIR}/${_dir}")
  endif()
endforeach()

install(TARGETS tessera_core tessera_kernels tessera_graph tessera_ops tessera_backends tessera_models tessera_flags
        EXPORT tessera-targets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(TARGETS tessera RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(EXPORT tessera-targets NAMESPACE tessera:: DESTINATION "${TESSERA_INSTALL_CMAKEDIR}")

configure_package_config_file(cmake/tesseraConfig.cmake.in "${PROJECT_BINARY_DIR}/tesseraConfig.cmake"
                              INSTALL_DESTINATION "${TESSERA_INSTALL_CMAKEDIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/tesseraConfig.cmake" "${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake"
        DESTINATION "${TESSERA_INSTALL_CMAKEDIR}")
