// A GGUF metadata value: one of the format's 13 value types, arrays nested to any depth.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tessera::gguf {

enum class ValueType : uint32_t {
    UINT8 = 0, INT8 = 1, UINT16 = 2, INT16 = 3, UINT32 = 4, INT32 = 5, FLOAT32 = 6,
    BOOL = 7, STRING = 8, ARRAY = 9, UINT64 = 10, INT64 = 11, FLOAT64 = 12,
};

std::string_view value_type_name(ValueType t);

struct Value;

struct Array {
    ValueType elem_type = ValueType::UINT8;
    std::vector<Value> items;
};

struct Value {
    // Alternative index == ValueType value, so type() is a cast.
    using Storage = std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool, std::string,
                                 Array, uint64_t, int64_t, double>;
    Storage v;

    ValueType type() const { return ValueType(v.index()); }

    // Integers of any width/sign that fit in the target; nullopt otherwise.
    std::optional<uint64_t> as_uint() const;
    std::optional<int64_t> as_int() const;
    // FLOAT32/FLOAT64 (and integers) as double.
    std::optional<double> as_double() const;
    const std::string* as_string() const { return std::get_if<std::string>(&v); }
    const Array* as_array() const { return std::get_if<Array>(&v); }
    const bool* as_bool() const { return std::get_if<bool>(&v); }

    // Floats compare by bit pattern, so a NaN equals itself and -0.0 differs from 0.0.
    bool operator==(const Value& other) const;
};

inline bool operator==(const Array& a, const Array& b) { return a.elem_type == b.elem_type && a.items == b.items; }

struct KeyValue {
    std::string key;
    Value value;
};

}  // namespace tessera::gguf
