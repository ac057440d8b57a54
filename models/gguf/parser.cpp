#include "models/gguf/parser.hpp"

#include <bit>
#include <unordered_map>
#include <utility>

#include "models/gguf/layout_math.hpp"
#include "models/gguf/printable.hpp"
#include "support/error.hpp"

namespace tessera::gguf {

static_assert(std::endian::native == std::endian::little, "the GGUF reader assumes a little-endian host");

namespace {

constexpr uint64_t kMinKvBytes = 8 + 4 + 1;                  // empty key, type, one-byte value
constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 8 + 4 + 8;  // empty name, n_dims, one dim, type, offset
constexpr uint32_t kLastValueType = uint32_t(ValueType::FLOAT64);

// Smallest encoding of one array element of `t`; arrays have their own type and count.
uint64_t min_encoded_size(ValueType t) {
    switch (t) {
        case ValueType::UINT8: case ValueType::INT8: case ValueType::BOOL: return 1;
        case ValueType::UINT16: case ValueType::INT16: return 2;
        case ValueType::UINT32: case ValueType::INT32: case ValueType::FLOAT32: return 4;
        case ValueType::UINT64: case ValueType::INT64: case ValueType::FLOAT64: return 8;
        case ValueType::STRING: return 8;
        case ValueType::ARRAY: return 4 + 8;
    }
    return 1;
}

template <class T>
Value make_value(T x) {
    return Value{Value::Storage{std::in_place_type<T>, x}};
}

}  // namespace

Parser::Parser(std::span<const uint8_t> bytes, std::string name) : bytes_(bytes) {
    file_.name_ = std::move(name);
    file_.bytes_ = bytes;
}

File Parser::run() {
    const auto [tensor_count, kv_count] = read_header();
    read_metadata(kv_count);
    apply_alignment();
    read_tensor_infos(tensor_count);
    place_tensor_data();
    return std::move(file_);
}

void Parser::fail(std::string_view field, const std::string& problem) const {
    std::string msg = file_.name_ + ": " + where_;
    for (uint64_t index : array_path_) msg += "[" + std::to_string(index) + "]";
    msg += " ";
    msg += field;
    msg += ": " + problem;
    throw Error(msg);
}

void Parser::require(uint64_t n, std::string_view field) const {
    if (n > remaining())
        fail(field, "truncated file: needs " + std::to_string(n) + " bytes at offset " + std::to_string(pos_) +
                        ", only " + std::to_string(remaining()) + " left");
}

void Parser::require_count(uint64_t count, uint64_t min_bytes, std::string_view field, std::string_view what) const {
    if (count > remaining() / min_bytes)
        fail(field, std::to_string(count) + " " + std::string(what) + " need at least " + std::to_string(min_bytes) +
                        " bytes each, but only " + std::to_string(remaining()) + " bytes are left at offset " +
                        std::to_string(pos_));
}

std::string_view Parser::read_string(std::string_view field) {
    const uint64_t at = pos_;
    const auto length = read<uint64_t>(field);
    if (length > remaining())
        fail(field, "string length " + std::to_string(length) + " at offset " + std::to_string(at) +
                        " exceeds the " + std::to_string(remaining()) + " bytes left in the file");
    const std::string_view s(reinterpret_cast<const char*>(bytes_.data() + pos_), size_t(length));
    pos_ += length;
    return s;
}

ValueType Parser::read_value_type(std::string_view field) {
    const auto id = read<uint32_t>(field);
    if (id > kLastValueType) fail(field, "unknown GGUF value type " + std::to_string(id));
    return ValueType(id);
}

std::pair<uint64_t, uint64_t> Parser::read_header() {
    where_ = "header";
    require(4, "magic");
    const std::string_view magic(reinterpret_cast<const char*>(bytes_.data()), 4);
    if (read<uint32_t>("magic") != kMagic) fail("magic", "expected 'GGUF', found " + quoted(magic) + ": not a GGUF file");

    const auto version = read<uint32_t>("version");
    if (version != 2 && version != 3) {
        std::string problem = version == 1 ? "GGUF version 1 is not supported (only versions 2 and 3 are)"
                                           : "unsupported GGUF version " + std::to_string(version) +
                                                 " (only versions 2 and 3 are supported)";
        const uint32_t swapped = __builtin_bswap32(version);
        if (swapped == 2 || swapped == 3) problem += "; this looks like a big-endian file, which is not supported";
        fail("version", problem);
    }
    file_.version_ = version;

    const auto tensor_count = read<uint64_t>("tensor_count");
    const auto kv_count = read<uint64_t>("kv_count");
    require_count(tensor_count, kMinTensorInfoBytes, "tensor_count", "tensor infos");
    require_count(kv_count, kMinKvBytes, "kv_count", "key-value pairs");
    return {tensor_count, kv_count};
}

void Parser::read_metadata(uint64_t kv_count) {
    auto& metadata = file_.metadata_;
    metadata.reserve(size_t(kv_count));
    std::unordered_map<std::string_view, uint64_t> first_index;
    for (uint64_t i = 0; i < kv_count; ++i) {
        where_ = "KV #" + std::to_string(i);
        const std::string_view key = read_string("key");
        where_ += " " + quoted(key);
        if (auto [it, inserted] = first_index.emplace(key, i); !inserted)
            fail("key", "duplicate key " + quoted(key) + " (first defined by KV #" + std::to_string(it->second) + ")");
        const ValueType type = read_value_type("value type");
        metadata.push_back(KeyValue{std::string(key), read_value(type, 0)});
    }
}

Value Parser::read_value(ValueType type, int depth) {
    switch (type) {
        case ValueType::UINT8: return make_value(read<uint8_t>("value"));
        case ValueType::INT8: return make_value(read<int8_t>("value"));
        case ValueType::UINT16: return make_value(read<uint16_t>("value"));
        case ValueType::INT16: return make_value(read<int16_t>("value"));
        case ValueType::UINT32: return make_value(read<uint32_t>("value"));
        case ValueType::INT32: return make_value(read<int32_t>("value"));
        case ValueType::FLOAT32: return make_value(read<float>("value"));
        case ValueType::UINT64: return make_value(read<uint64_t>("value"));
        case ValueType::INT64: return make_value(read<int64_t>("value"));
        case ValueType::FLOAT64: return make_value(read<double>("value"));
        case ValueType::BOOL: {
            const auto byte = read<uint8_t>("value");
            if (byte > 1) fail("value", "BOOL must be 0 or 1, found " + std::to_string(byte));
            return make_value(byte == 1);
        }
        case ValueType::STRING: return make_value(std::string(read_string("string")));
        case ValueType::ARRAY: return Value{Value::Storage{std::in_place_type<Array>, read_array(depth + 1)}};
    }
    fail("value type", "unknown GGUF value type " + std::to_string(uint32_t(type)));
}

Array Parser::read_array(int depth) {
    if (depth > kMaxArrayDepth)
        fail("array", "arrays nested " + std::to_string(depth) + " deep exceed the limit of " +
                          std::to_string(kMaxArrayDepth));
    Array array;
    array.elem_type = read_value_type("array element type");
    const auto count = read<uint64_t>("array count");
    require_count(count, min_encoded_size(array.elem_type), "array count",
                  std::string(value_type_name(array.elem_type)) + " elements");
    array.items.reserve(size_t(count));
    array_path_.push_back(0);
    for (uint64_t i = 0; i < count; ++i) {
        array_path_.back() = i;
        array.items.push_back(read_value(array.elem_type, depth));
    }
    array_path_.pop_back();
    return array;
}

void Parser::apply_alignment() {
    const Value* value = file_.find("general.alignment");
    if (!value) return;
    where_ = "KV 'general.alignment'";
    const auto* alignment = std::get_if<uint32_t>(&value->v);
    if (!alignment)
        fail("type", "must be UINT32, found " + std::string(value_type_name(value->type())));
    if (!is_power_of_two(*alignment))
        fail("value", std::to_string(*alignment) + " is not a nonzero power of two");
    file_.alignment_ = *alignment;
}

}  // namespace tessera::gguf
