#include "models/gguf/file.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "models/gguf/parser.hpp"
#include "models/gguf/printable.hpp"
#include "support/error.hpp"

namespace tessera::gguf {

uint64_t TensorInfo::n_elements() const {
    uint64_t n = 1;
    for (uint64_t d : ne) n *= d;
    return n;
}

std::string TensorInfo::shape_string() const { return gguf::shape_string(ne); }

File File::open(const std::string& path, FileMemory memory) {
    auto mapping = std::make_shared<MappedFile>(path, memory);
    File file = parse(mapping->bytes(), path);
    file.mapping_ = std::move(mapping);
    return file;
}

File File::parse(std::span<const uint8_t> bytes, std::string name) {
    return Parser(bytes, std::move(name)).run();
}

uint64_t File::copy_tensors_to_huge_pages(const std::function<int(const TensorInfo&)>& rank) {
    if (is_copy() || tensor_copy_) return 0;  // already in private memory
    constexpr uint64_t kAlign = 64;
    auto aligned = [](uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; };
    std::vector<std::pair<int, TensorInfo*>> order;
    for (TensorInfo& t : tensors_)
        if (const int r = rank(t); r >= 0) order.emplace_back(r, &t);
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    uint64_t total = 0;
    size_t n = 0;
    for (; n < order.size(); ++n) {
        const uint64_t more = total + aligned(order[n].second->data.size());
        if (!huge_page_copy_fits(size_t(more))) break;
        total = more;
    }
    if (total == 0) return 0;
    HugePageBuffer copy;
    try {
        copy = allocate_huge_pages(size_t(total));
    } catch (const Error&) {  // no room after all: the tensors stay where they are
        return 0;
    }
    uint64_t at = 0;
    for (size_t i = 0; i < n; ++i) {
        TensorInfo& t = *order[i].second;
        std::memcpy(copy.get() + at, t.data.data(), t.data.size());
        t.data = {copy.get() + at, t.data.size()};
        at += aligned(t.data.size());
    }
    tensor_copy_ = std::make_shared<HugePageBuffer>(std::move(copy));
    tensor_copy_bytes_ = total;
    return total;
}

const Value* File::find(std::string_view key) const {
    for (const auto& kv : metadata_)
        if (kv.key == key) return &kv.value;
    return nullptr;
}

namespace {

[[noreturn]] void throw_missing(const File& file, std::string_view key) {
    throw Error(file.name() + ": metadata key " + quoted(key) + " not found");
}

[[noreturn]] void throw_wrong_type(const File& file, std::string_view key, const Value& value,
                                   std::string_view expected) {
    std::string msg = file.name() + ": metadata key " + quoted(key) + " has type " +
                      std::string(value_type_name(value.type())) + ", expected " + std::string(expected);
    if (auto i = value.as_int(); i && *i < 0) msg += " (value " + std::to_string(*i) + ")";
    throw Error(msg);
}

uint64_t uint_of(const File& file, std::string_view key, const Value& value) {
    if (auto u = value.as_uint()) return *u;
    throw_wrong_type(file, key, value, "a non-negative integer");
}

double float_of(const File& file, std::string_view key, const Value& value) {
    if (auto d = value.as_double()) return *d;
    throw_wrong_type(file, key, value, "a number");
}

const std::string& string_of(const File& file, std::string_view key, const Value& value) {
    if (auto s = value.as_string()) return *s;
    throw_wrong_type(file, key, value, "STRING");
}

}  // namespace

uint64_t File::get_uint(std::string_view key) const {
    const Value* v = find(key);
    if (!v) throw_missing(*this, key);
    return uint_of(*this, key, *v);
}

uint64_t File::get_uint(std::string_view key, uint64_t fallback) const {
    const Value* v = find(key);
    return v ? uint_of(*this, key, *v) : fallback;
}

double File::get_float(std::string_view key) const {
    const Value* v = find(key);
    if (!v) throw_missing(*this, key);
    return float_of(*this, key, *v);
}

double File::get_float(std::string_view key, double fallback) const {
    const Value* v = find(key);
    return v ? float_of(*this, key, *v) : fallback;
}

std::string File::get_string(std::string_view key) const {
    const Value* v = find(key);
    if (!v) throw_missing(*this, key);
    return string_of(*this, key, *v);
}

std::string File::get_string(std::string_view key, std::string_view fallback) const {
    const Value* v = find(key);
    return v ? string_of(*this, key, *v) : std::string(fallback);
}

bool File::get_bool(std::string_view key, bool fallback) const {
    const Value* v = find(key);
    if (!v) return fallback;
    if (const bool* b = v->as_bool()) return *b;
    throw_wrong_type(*this, key, *v, "BOOL");
}

const Array& File::get_array(std::string_view key) const {
    const Value* v = find(key);
    if (!v) throw_missing(*this, key);
    if (const Array* a = v->as_array()) return *a;
    throw_wrong_type(*this, key, *v, "ARRAY");
}

const TensorInfo* File::find_tensor(std::string_view name) const {
    for (const auto& t : tensors_)
        if (t.name == name) return &t;
    return nullptr;
}

const TensorInfo& File::tensor(std::string_view name) const {
    if (const TensorInfo* t = find_tensor(name)) return *t;
    throw Error(name_ + ": tensor " + quoted(name) + " not found (the file has " + std::to_string(tensors_.size()) +
                " tensors)");
}

}  // namespace tessera::gguf
