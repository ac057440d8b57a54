// The Error a file's load throws, for tests of files that must be refused.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "models/gguf/file.hpp"
#include "models/model.hpp"
#include "support/error.hpp"

namespace tessera::test {

// The message of the Error opening `path` as a model throws; a test failure
// (and "") where it loads.
inline std::string load_error(const std::filesystem::path& path) {
    try {
        model::Model m(gguf::File::open(path.string()));
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << path << " loaded; expected an Error";
    return "";
}

}  // namespace tessera::test
