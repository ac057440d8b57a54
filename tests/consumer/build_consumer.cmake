# Installs the tessera build BUILD_DIR into WORK_DIR/prefix, then configures,
# builds and runs the consumer project against it; any failing step fails.
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DCXX_COMPILER=... [-DLAUNCHER=...] [-DBUILD_TYPE=...] -P build_consumer.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/build")

execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}"
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
set(launcher "")
if(LAUNCHER)
  set(launcher "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}" -B "${consumer_build}"
                        "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
                        "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}" ${launcher}
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${consumer_build}" COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${consumer_build}/consumer" COMMAND_ERROR_IS_FATAL ANY)
