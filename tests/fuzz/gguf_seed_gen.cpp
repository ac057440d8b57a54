// Writes small synthetic GGUF files into a directory, as fuzzing seeds that
// cover what the conformance files lack: every value type, nested arrays,
// non-default alignments, several tensor types and shapes, version 2.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "models/gguf/writer.hpp"
#include "support/error.hpp"

namespace {

using namespace tessera;
using namespace tessera::gguf;

template <class T>
Value val(T x) {
    return Value{Value::Storage{std::in_place_type<T>, std::move(x)}};
}

Value array_of(ValueType elem_type, std::vector<Value> items) { return val(Array{elem_type, std::move(items)}); }

void add_every_value_type(Writer& w) {
    w.add_kv("general.architecture", val<std::string>("llama"));
    w.add_kv("u8", val<uint8_t>(7));
    w.add_kv("i8", val<int8_t>(-7));
    w.add_kv("u16", val<uint16_t>(700));
    w.add_kv("i16", val<int16_t>(-700));
    w.add_kv("u32", val<uint32_t>(70000));
    w.add_kv("i32", val<int32_t>(-70000));
    w.add_kv("f32", val<float>(1e-5f));
    w.add_kv("bool", val<bool>(true));
    w.add_kv("u64", val<uint64_t>(7000000000));
    w.add_kv("i64", val<int64_t>(-7000000000));
    w.add_kv("f64", val<double>(0.125));
    w.add_kv("tokens", array_of(ValueType::STRING, {val<std::string>("<s>"), val<std::string>("a")}));
    w.add_kv("scores", array_of(ValueType::FLOAT32, {val<float>(0.f), val<float>(-1.f)}));
    w.add_kv("nested", array_of(ValueType::ARRAY, {array_of(ValueType::INT32, {val<int32_t>(1)}),
                                                   array_of(ValueType::ARRAY, {array_of(ValueType::BOOL, {})})}));
}

std::vector<uint8_t> bytes_for(GgmlType type, uint64_t elems) {
    const auto traits = ggml_type_traits(type);
    std::vector<uint8_t> bytes(elems / traits.block_elems * traits.block_bytes);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 13 + 1);
    return bytes;
}

void write_tensors(const std::filesystem::path& path, uint32_t alignment, std::vector<GgmlType> types) {
    Writer w;
    w.add_kv("general.name", val<std::string>("seed"));
    w.set_alignment(alignment);
    std::vector<std::vector<uint8_t>> data;
    for (size_t i = 0; i < types.size(); ++i) {
        const auto traits = ggml_type_traits(types[i]);
        const std::vector<uint64_t> ne = {traits.block_elems * (i % 2 + 1), i % 3 + 1};
        data.push_back(bytes_for(types[i], ne[0] * ne[1]));
        w.add_tensor("blk." + std::to_string(i) + ".weight", types[i], ne, data.back());
    }
    w.write(path.string());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    const std::filesystem::path out = argv[1];
    try {
        std::filesystem::create_directories(out);
        Writer values;
        add_every_value_type(values);
        values.write((out / "synthetic-values.gguf").string());

        Writer both;
        add_every_value_type(both);
        const auto data = bytes_for(GgmlType::Q4_K, 256);
        both.add_tensor("token_embd.weight", GgmlType::Q4_K, {256}, data);
        both.write((out / "synthetic-values-tensor.gguf").string());

        write_tensors(out / "synthetic-f32-f16-align32.gguf", 32, {GgmlType::F32, GgmlType::F16, GgmlType::BF16});
        write_tensors(out / "synthetic-quant-align1.gguf", 1, {GgmlType::Q4_0, GgmlType::Q8_0, GgmlType::I8});
        write_tensors(out / "synthetic-kquant-align64.gguf", 64,
                      {GgmlType::Q2_K, GgmlType::Q6_K, GgmlType::IQ2_XXS, GgmlType::TQ1_0});
        Writer empty;
        empty.write((out / "synthetic-empty.gguf").string());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
