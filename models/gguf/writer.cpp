#include "models/gguf/writer.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <utility>

#include "models/gguf/encode.hpp"
#include "models/gguf/file.hpp"
#include "models/gguf/layout_math.hpp"
#include "models/gguf/printable.hpp"
#include "support/error.hpp"
#include "support/output_file.hpp"

namespace tessera::gguf {

namespace {

constexpr std::string_view kAlignmentKey = "general.alignment";

uint32_t checked_alignment(const Value& value) {
    const auto* alignment = std::get_if<uint32_t>(&value.v);
    if (!alignment)
        throw Error("GGUF writer: KV 'general.alignment' must be UINT32, not " +
                    std::string(value_type_name(value.type())));
    if (!is_power_of_two(*alignment))
        throw Error("GGUF writer: KV 'general.alignment': " + std::to_string(*alignment) +
                    " is not a nonzero power of two");
    return *alignment;
}

// Byte size of a tensor the writer accepts: the reader's shape rules.
uint64_t checked_byte_size(std::string_view name, GgmlType type, const std::vector<uint64_t>& ne) {
    const auto fail = [&](const std::string& problem) {
        throw Error("GGUF writer: tensor " + quoted(name) + " " + shape_string(ne) + ": " + problem);
    };
    const auto traits = ggml_type_traits(uint32_t(type));
    if (!traits) fail("unknown ggml type id " + std::to_string(uint32_t(type)));
    if (ne.empty() || ne.size() > size_t(kMaxDims)) fail("n_dims must be 1.." + std::to_string(kMaxDims));
    if (std::find(ne.begin(), ne.end(), uint64_t{0}) != ne.end()) fail("a dimension is 0");
    if (ne[0] % traits->block_elems != 0)
        fail("ne[0] is not a multiple of the " + std::string(traits->name) + " block size " +
             std::to_string(traits->block_elems));
    const auto size = tensor_byte_size(*traits, ne);
    if (!size) fail("size overflows");
    return *size;
}

}  // namespace

void Writer::set_alignment(uint32_t alignment) {
    const Value value{Value::Storage{std::in_place_type<uint32_t>, alignment}};
    alignment_ = checked_alignment(value);
    for (auto& kv : metadata_)
        if (kv.key == kAlignmentKey) {
            kv.value = value;
            return;
        }
    if (alignment != kDefaultAlignment) metadata_.push_back(KeyValue{std::string(kAlignmentKey), value});
}

void Writer::add_kv(std::string key, Value value) {
    for (const auto& kv : metadata_)
        if (kv.key == key) throw Error("GGUF writer: duplicate KV " + quoted(key));
    check_encodable(key, value);
    if (key == kAlignmentKey) alignment_ = checked_alignment(value);
    metadata_.push_back(KeyValue{std::move(key), std::move(value)});
}

void Writer::add_tensor(std::string name, GgmlType type, std::vector<uint64_t> ne, Fill fill) {
    for (const auto& t : tensors_)
        if (t.name == name) throw Error("GGUF writer: duplicate tensor name " + quoted(name));
    if (!fill) throw Error("GGUF writer: tensor " + quoted(name) + " has no fill function");
    checked_byte_size(name, type, ne);
    tensors_.push_back(PendingTensor{std::move(name), type, std::move(ne), std::move(fill)});
}

void Writer::add_tensor(std::string name, GgmlType type, std::vector<uint64_t> ne, std::span<const uint8_t> bytes) {
    const uint64_t size = checked_byte_size(name, type, ne);
    if (bytes.size() != size)
        throw Error("GGUF writer: tensor " + quoted(name) + " " + shape_string(ne) + " needs " + std::to_string(size) +
                    " bytes, " + std::to_string(bytes.size()) + " given");
    add_tensor(std::move(name), type, std::move(ne),
               [bytes](std::span<uint8_t> dst) { std::memcpy(dst.data(), bytes.data(), bytes.size()); });
}

Writer Writer::copy_of(const File& file) {
    Writer writer;
    for (const auto& kv : file.metadata()) writer.add_kv(kv.key, kv.value);
    for (const auto& t : file.tensors()) {
        auto copy = [bytes = t.data, keep_alive = file.mapping_](std::span<uint8_t> dst) {
            std::memcpy(dst.data(), bytes.data(), bytes.size());
        };
        writer.add_tensor(t.name, t.type.id, t.ne, copy);
    }
    return writer;
}

void Writer::write(const std::string& path, const std::function<void(uint64_t, uint64_t)>& progress) const {
    // Layout: tensor data in insertion order, each starting at a multiple of the alignment.
    std::vector<uint64_t> sizes, offsets;
    uint64_t data_size = 0;
    for (const auto& t : tensors_) {
        sizes.push_back(checked_byte_size(t.name, t.type, t.ne));
        offsets.push_back(data_size);
        const auto end = checked_add(data_size, sizes.back());
        const auto next = end ? align_up(*end, alignment_) : std::nullopt;
        if (!next) throw Error("GGUF writer: " + path + ": total tensor data size overflows");
        data_size = *next;
    }

    Encoder header;
    header.put(kMagic);
    header.put(uint32_t{3});
    header.put(uint64_t(tensors_.size()));
    header.put(uint64_t(metadata_.size()));
    for (const auto& kv : metadata_) {
        header.put_string(kv.key);
        header.put(uint32_t(kv.value.type()));
        header.put_value(kv.value);
    }
    for (size_t i = 0; i < tensors_.size(); ++i) {
        const auto& t = tensors_[i];
        header.put_string(t.name);
        header.put(uint32_t(t.ne.size()));
        for (uint64_t d : t.ne) header.put(d);
        header.put(uint32_t(t.type));
        header.put(offsets[i]);
    }

    OutputFile out(path);
    out.write(header.bytes());
    if (!tensors_.empty()) out.write_zeros(*align_up(out.size(), alignment_) - out.size());
    const uint64_t data_start = out.size();

    const uint64_t total = std::accumulate(sizes.begin(), sizes.end(), uint64_t{0});
    uint64_t done = 0;
    std::vector<uint8_t> buffer;  // one tensor at a time: grows to the largest tensor
    for (size_t i = 0; i < tensors_.size(); ++i) {
        out.write_zeros(data_start + offsets[i] - out.size());
        buffer.resize(size_t(sizes[i]));
        tensors_[i].fill(buffer);
        out.write(buffer);
        done += sizes[i];
        if (progress) progress(done, total);
    }
    out.write_zeros(data_start + data_size - out.size());
    out.commit();
}

}  // namespace tessera::gguf
