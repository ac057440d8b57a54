// A GGUF file written again with one metadata key set (or added) and its
// tensors' bytes optionally edited: a corrupt or unusual file made from a
// good one, for tests.
#pragma once

#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "models/gguf/file.hpp"
#include "models/gguf/writer.hpp"

namespace tessera::gguf::test {

template <class T>
Value value_of(T x) {
    return Value{Value::Storage{std::in_place_type<T>, x}};
}

// `source` written to "edited-<key>.gguf" beside it, with `key` set to
// `value` (added when absent) and `edit` applied to each tensor's bytes.
inline std::filesystem::path rewritten(const std::filesystem::path& source, const std::string& key,
                                       std::optional<Value> value,
                                       const std::function<void(const std::string&, std::span<uint8_t>)>& edit = nullptr) {
    const File in = File::open(source.string());
    Writer w;
    bool replaced = false;
    for (const auto& kv : in.metadata()) {
        const bool hit = kv.key == key && value;
        w.add_kv(kv.key, hit ? *value : kv.value);
        replaced |= hit;
    }
    if (value && !replaced) w.add_kv(key, *value);
    for (const auto& t : in.tensors())
        w.add_tensor(t.name, t.type.id, t.ne, [&t, edit](std::span<uint8_t> dst) {
            std::memcpy(dst.data(), t.data.data(), dst.size());
            if (edit) edit(t.name, dst);
        });
    const std::filesystem::path out = source.parent_path() / ("edited-" + key + ".gguf");
    w.write(out.string());
    return out;
}

}  // namespace tessera::gguf::test
