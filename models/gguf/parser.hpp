// The GGUF parser behind File::parse (internal to models/gguf). It walks the
// bytes once with a bounds-checked cursor; every error message starts with
// the file name and the item being read ("KV #3 'llama.block_count'",
// "tensor #0 'token_embd.weight'"), then names the field and the value.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/gguf/file.hpp"

namespace tessera::gguf {

class Parser {
public:
    Parser(std::span<const uint8_t> bytes, std::string name);
    File run();

private:
    [[noreturn]] void fail(std::string_view field, const std::string& problem) const;
    uint64_t remaining() const { return bytes_.size() - pos_; }
    void require(uint64_t n, std::string_view field) const;
    // Fails unless `count` items of at least `min_bytes` each fit in the rest of the file.
    void require_count(uint64_t count, uint64_t min_bytes, std::string_view field, std::string_view what) const;

    template <class T>
    T read(std::string_view field);
    std::string_view read_string(std::string_view field);
    ValueType read_value_type(std::string_view field);

    std::pair<uint64_t, uint64_t> read_header();  // tensor_count, kv_count
    void read_metadata(uint64_t kv_count);
    Value read_value(ValueType type, int depth);
    Array read_array(int depth);
    void apply_alignment();

    void read_tensor_infos(uint64_t tensor_count);
    TensorInfo read_tensor_info();
    void place_tensor_data();

    std::span<const uint8_t> bytes_;
    uint64_t pos_ = 0;
    std::string where_;                 // item being read, for error messages
    std::vector<uint64_t> array_path_;  // element indices while inside arrays
    File file_;
};

template <class T>
T Parser::read(std::string_view field) {
    require(sizeof(T), field);
    T x;
    std::memcpy(&x, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return x;
}

}  // namespace tessera::gguf
