// Helpers for the GGUF tests: raw little-endian GGUF bytes built field by
// field (so a test can corrupt any one field), parse-error capture, and a
// scratch directory.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "models/gguf/file.hpp"
#include "support/error.hpp"

namespace tessera::gguf::test {

class GgufBytes {
public:
    template <class T>
    GgufBytes& put(T x) {
        const size_t at = bytes_.size();
        bytes_.resize(at + sizeof(T));
        std::memcpy(bytes_.data() + at, &x, sizeof(T));
        return *this;
    }
    GgufBytes& u8(uint8_t x) { return put(x); }
    GgufBytes& u32(uint32_t x) { return put(x); }
    GgufBytes& u64(uint64_t x) { return put(x); }
    GgufBytes& str(std::string_view s) {
        u64(s.size());
        bytes_.insert(bytes_.end(), s.begin(), s.end());
        return *this;
    }
    GgufBytes& header(uint64_t tensor_count, uint64_t kv_count, uint32_t version = 3) {
        return u32(kMagic).u32(version).u64(tensor_count).u64(kv_count);
    }
    GgufBytes& kv_u32(std::string_view key, uint32_t value) { return str(key).u32(uint32_t(ValueType::UINT32)).u32(value); }
    GgufBytes& kv_str(std::string_view key, std::string_view value) {
        return str(key).u32(uint32_t(ValueType::STRING)).str(value);
    }
    GgufBytes& tensor_info(std::string_view name, std::initializer_list<uint64_t> ne, uint32_t type, uint64_t offset) {
        str(name).u32(uint32_t(ne.size()));
        for (uint64_t d : ne) u64(d);
        return u32(type).u64(offset);
    }
    GgufBytes& pad_to(uint64_t alignment) { return zeros((alignment - bytes_.size() % alignment) % alignment); }
    GgufBytes& zeros(uint64_t n) {
        bytes_.resize(bytes_.size() + n, 0);
        return *this;
    }

    const std::vector<uint8_t>& bytes() const { return bytes_; }
    size_t size() const { return bytes_.size(); }

private:
    std::vector<uint8_t> bytes_;
};

// The message of the tessera::Error that parsing `bytes` throws; a test
// failure (and "") when it parses.
inline std::string parse_error(std::span<const uint8_t> bytes, std::string name = "bad.gguf") {
    try {
        File::parse(bytes, std::move(name));
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "parsing succeeded, expected a tessera::Error";
    return "";
}

// Expects `message` to contain every one of `parts`.
inline void expect_mentions(const std::string& message, std::initializer_list<std::string_view> parts) {
    for (std::string_view part : parts)
        EXPECT_NE(message.find(part), std::string::npos) << "message lacks \"" << part << "\": " << message;
}

inline std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A fresh directory under the system temp dir, removed with its contents at scope exit.
class ScratchDir {
public:
    ScratchDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        path_ = std::filesystem::temp_directory_path() /
                ("tessera-" + std::string(info->test_suite_name()) + "-" + info->name() + "-" +
                 std::to_string(::getpid()));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    std::filesystem::path operator/(std::string_view name) const { return path_ / name; }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace tessera::gguf::test
