# Tests of `tessera serve` (tools/serve/). Included at the end of the top
# directory (a deferred call in tools/CMakeLists.txt), once tests/ has made
# tessera_tests.
#  - tests/unit/serve_*.cpp are compiled into tessera_tests, which links the server library;
#  - the browser test and a small run of the load and fault test drive the
#    tessera binary with stories260K from the conformance data (both skip
#    with a message where it, python3 or chromium is absent).
target_link_libraries(tessera_tests PRIVATE tessera_serve)

find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "python3 not found: the tests of tessera serve's page and load are left out")
  return()
endif()
cmake_path(ABSOLUTE_PATH TESSERA_CONFORMANCE_DIR NORMALIZE OUTPUT_VARIABLE _conformance_dir)
set(_model "${_conformance_dir}/models/stories260K-Q8_0.gguf")

add_test(NAME Serve.BrowserShowsStreamedAnswer
         COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_LIST_DIR}/browser_test.py"
                 --tessera "$<TARGET_FILE:tessera>" --model "${_model}")
add_test(NAME Serve.LoadAndFaults
         COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_LIST_DIR}/load_test.py"
                 --tessera "$<TARGET_FILE:tessera>" --model "${_model}" --clients 8 --parallel 2)
# Exit code 77: the test's requirement (chromium, the model) is missing.
set_tests_properties(Serve.BrowserShowsStreamedAnswer Serve.LoadAndFaults PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
