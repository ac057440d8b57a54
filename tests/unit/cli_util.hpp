// Running the `tessera` binary from tests.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "logit_compare.hpp"  // read_f32, read_json

namespace tessera::test {

namespace fs = std::filesystem;

struct RunResult {
    int exit_code;
    std::string out;
};

// out: stdout and stderr together, or stdout only (stderr discarded).
inline RunResult run_cli(const std::string& args, bool with_stderr = true) {
    const std::string cmd = std::string(TESSERA_CLI_PATH) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return {-1, "popen failed"};
    std::string out;
    std::array<char, 4096> buf{};
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
    const int status = pclose(pipe);
    return {WEXITSTATUS(status), out};
}

inline fs::path temp_path(const std::string& name) {
    return fs::temp_directory_path() / ("tessera_cli_test_" + std::to_string(::getpid()) + "_" + name);
}

}  // namespace tessera::test
