#include "models/gguf/value.hpp"

#include <bit>
#include <limits>
#include <type_traits>

namespace tessera::gguf {

std::string_view value_type_name(ValueType t) {
    switch (t) {
        case ValueType::UINT8: return "UINT8";
        case ValueType::INT8: return "INT8";
        case ValueType::UINT16: return "UINT16";
        case ValueType::INT16: return "INT16";
        case ValueType::UINT32: return "UINT32";
        case ValueType::INT32: return "INT32";
        case ValueType::FLOAT32: return "FLOAT32";
        case ValueType::BOOL: return "BOOL";
        case ValueType::STRING: return "STRING";
        case ValueType::ARRAY: return "ARRAY";
        case ValueType::UINT64: return "UINT64";
        case ValueType::INT64: return "INT64";
        case ValueType::FLOAT64: return "FLOAT64";
    }
    return "unknown";
}

namespace {

template <class T>
constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

}  // namespace

std::optional<uint64_t> Value::as_uint() const {
    return std::visit(
        [](const auto& x) -> std::optional<uint64_t> {
            using T = std::decay_t<decltype(x)>;
            if constexpr (kIsInteger<T>) {
                if constexpr (std::is_signed_v<T>)
                    if (x < 0) return std::nullopt;
                return uint64_t(x);
            }
            return std::nullopt;
        },
        v);
}

std::optional<int64_t> Value::as_int() const {
    return std::visit(
        [](const auto& x) -> std::optional<int64_t> {
            using T = std::decay_t<decltype(x)>;
            if constexpr (kIsInteger<T>) {
                if constexpr (std::is_same_v<T, uint64_t>)
                    if (x > uint64_t(std::numeric_limits<int64_t>::max())) return std::nullopt;
                return int64_t(x);
            }
            return std::nullopt;
        },
        v);
}

std::optional<double> Value::as_double() const {
    return std::visit(
        [](const auto& x) -> std::optional<double> {
            using T = std::decay_t<decltype(x)>;
            if constexpr (kIsInteger<T> || std::is_floating_point_v<T>) return double(x);
            return std::nullopt;
        },
        v);
}

// Floats compare by bit pattern: a value read from a file equals the value
// written, NaN payloads and the sign of zero included.
bool Value::operator==(const Value& other) const {
    if (v.index() != other.v.index()) return false;
    return std::visit(
        [&other](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            const T& y = std::get<T>(other.v);
            if constexpr (std::is_same_v<T, float>) return std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(y);
            else if constexpr (std::is_same_v<T, double>) return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(y);
            else return x == y;
        },
        v);
}

}  // namespace tessera::gguf
