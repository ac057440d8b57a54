#include "models/gguf/encode.hpp"

#include <bit>
#include <string>

#include "models/gguf/file.hpp"
#include "models/gguf/printable.hpp"
#include "support/error.hpp"

namespace tessera::gguf {

static_assert(std::endian::native == std::endian::little, "the GGUF writer assumes a little-endian host");

void Encoder::put_string(std::string_view s) {
    put(uint64_t(s.size()));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
}

void Encoder::put_value(const Value& value) {
    std::visit(
        [this](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, bool>) {
                put(uint8_t(x ? 1 : 0));
            } else if constexpr (std::is_same_v<T, std::string>) {
                put_string(x);
            } else if constexpr (std::is_same_v<T, Array>) {
                put(uint32_t(x.elem_type));
                put(uint64_t(x.items.size()));
                for (const Value& item : x.items) put_value(item);
            } else {
                put(x);
            }
        },
        value.v);
}

namespace {

void check_array(std::string_view key, const Array& array, int depth) {
    if (depth > kMaxArrayDepth)
        throw Error("GGUF writer: KV " + quoted(key) + ": arrays nested " + std::to_string(depth) +
                    " deep exceed the limit of " + std::to_string(kMaxArrayDepth));
    if (uint32_t(array.elem_type) > uint32_t(ValueType::FLOAT64))
        throw Error("GGUF writer: KV " + quoted(key) + ": unknown array element type " +
                    std::to_string(uint32_t(array.elem_type)));
    for (size_t i = 0; i < array.items.size(); ++i) {
        const Value& item = array.items[i];
        if (item.type() != array.elem_type)
            throw Error("GGUF writer: KV " + quoted(key) + ": array element " + std::to_string(i) + " has type " +
                        std::string(value_type_name(item.type())) + ", but the array's element type is " +
                        std::string(value_type_name(array.elem_type)));
        if (const Array* inner = item.as_array()) check_array(key, *inner, depth + 1);
    }
}

}  // namespace

void check_encodable(std::string_view key, const Value& value) {
    if (const Array* array = value.as_array()) check_array(key, *array, 1);
}

}  // namespace tessera::gguf
