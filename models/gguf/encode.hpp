// Little-endian GGUF encoding of values into a byte buffer (the writer's half
// of the format), and the checks that make a Value encodable.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "models/gguf/value.hpp"

namespace tessera::gguf {

class Encoder {
public:
    template <class T>
        requires std::is_arithmetic_v<T>
    void put(T x) {
        const size_t at = bytes_.size();
        bytes_.resize(at + sizeof(T));
        std::memcpy(bytes_.data() + at, &x, sizeof(T));
    }
    void put_string(std::string_view s);
    // Type-less: the caller writes the value type (KVs) or it is the array's element type.
    void put_value(const Value& value);

    std::vector<uint8_t>& bytes() { return bytes_; }

private:
    std::vector<uint8_t> bytes_;
};

// Throws tessera::Error naming `key` when an array's items do not all have its
// element type or arrays nest deeper than the reader accepts.
void check_encodable(std::string_view key, const Value& value);

}  // namespace tessera::gguf
