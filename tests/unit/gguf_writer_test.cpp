// Writer -> reader round trips built in memory (no conformance data needed).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>

#include "gguf_test_util.hpp"
#include "models/gguf/file.hpp"
#include "models/gguf/writer.hpp"

namespace tessera::gguf {
namespace {

using test::expect_mentions;
using test::read_bytes;
using test::ScratchDir;

template <class T>
Value val(T x) {
    return Value{Value::Storage{std::in_place_type<T>, std::move(x)}};
}

Value array_of(ValueType elem_type, std::vector<Value> items) {
    return val(Array{elem_type, std::move(items)});
}

std::vector<KeyValue> every_value_type() {
    return {
        {"u8", val<uint8_t>(255)},
        {"i8", val<int8_t>(-128)},
        {"u16", val<uint16_t>(65535)},
        {"i16", val<int16_t>(-32768)},
        {"u32", val<uint32_t>(4294967295u)},
        {"i32", val<int32_t>(std::numeric_limits<int32_t>::min())},
        {"f32", val<float>(1e-5f)},
        {"f32.nan", val<float>(std::bit_cast<float>(0x7fc12345u))},
        {"f32.negzero", val<float>(-0.0f)},
        {"bool.true", val<bool>(true)},
        {"bool.false", val<bool>(false)},
        {"string", val<std::string>("h\xc3\xa9llo")},
        {"string.empty", val<std::string>("")},
        {"string.nul", val<std::string>(std::string("a\0b", 3))},
        {"u64", val<uint64_t>(std::numeric_limits<uint64_t>::max())},
        {"i64", val<int64_t>(std::numeric_limits<int64_t>::min())},
        {"f64", val<double>(-2.5e300)},
        {"array.u8", array_of(ValueType::UINT8, {val<uint8_t>(1), val<uint8_t>(2)})},
        {"array.empty", array_of(ValueType::FLOAT32, {})},
        {"array.strings", array_of(ValueType::STRING, {val<std::string>("a"), val<std::string>(""),
                                                       val<std::string>("<0x0A>")})},
        {"array.bools", array_of(ValueType::BOOL, {val<bool>(true), val<bool>(false)})},
        {"array.i64", array_of(ValueType::INT64, {val<int64_t>(-1), val<int64_t>(1)})},
        {"array.f64", array_of(ValueType::FLOAT64, {val<double>(0.5)})},
        {"array.nested",
         array_of(ValueType::ARRAY,
                  {array_of(ValueType::STRING, {val<std::string>("x")}),
                   array_of(ValueType::ARRAY, {array_of(ValueType::INT16, {val<int16_t>(-7)}),
                                               array_of(ValueType::UINT64, {})}),
                   array_of(ValueType::UINT8, {})})},
    };
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
    std::vector<uint8_t> bytes(n);
    for (size_t i = 0; i < n; ++i) bytes[i] = uint8_t(seed + i * 7);
    return bytes;
}

TEST(GgufWriter, EveryValueTypeRoundTrips) {
    ScratchDir dir;
    Writer writer;
    const auto kvs = every_value_type();
    for (const auto& kv : kvs) writer.add_kv(kv.key, kv.value);
    writer.write(dir / "values.gguf");

    const File file = File::open(dir / "values.gguf");
    EXPECT_EQ(file.version(), 3u);
    ASSERT_EQ(file.metadata().size(), kvs.size());
    for (size_t i = 0; i < kvs.size(); ++i) {
        EXPECT_EQ(file.metadata()[i].key, kvs[i].key);  // insertion order
        EXPECT_TRUE(file.metadata()[i].value == kvs[i].value) << kvs[i].key;
        EXPECT_EQ(file.metadata()[i].value.type(), kvs[i].value.type()) << kvs[i].key;
    }
    EXPECT_TRUE(file.tensors().empty());
    // Without tensors the file ends with the metadata: no padding.
    const uint64_t size = std::filesystem::file_size(dir / "values.gguf");
    EXPECT_LE(size, file.data_offset());
    EXPECT_LT(file.data_offset() - size, 32u);
}

TEST(GgufWriter, TypedGetters) {
    ScratchDir dir;
    Writer writer;
    for (const auto& kv : every_value_type()) writer.add_kv(kv.key, kv.value);
    writer.write(dir / "values.gguf");
    const File file = File::open(dir / "values.gguf");

    EXPECT_EQ(file.get_uint("u8"), 255u);
    EXPECT_EQ(file.get_uint("u64"), std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(file.get_uint("missing", 42), 42u);
    EXPECT_FLOAT_EQ(float(file.get_float("f32")), 1e-5f);
    EXPECT_EQ(file.get_float("u16"), 65535.0);
    EXPECT_EQ(file.get_float("missing", 1.5), 1.5);
    EXPECT_EQ(file.get_string("string"), "h\xc3\xa9llo");
    EXPECT_EQ(file.get_string("missing", "dflt"), "dflt");
    EXPECT_TRUE(file.get_bool("bool.true", false));
    EXPECT_FALSE(file.get_bool("bool.false", true));
    EXPECT_TRUE(file.get_bool("missing", true));
    EXPECT_EQ(file.get_array("array.strings").items.size(), 3u);
    EXPECT_EQ(file.find("nope"), nullptr);
    ASSERT_NE(file.find("i64"), nullptr);
    EXPECT_EQ(file.find("i64")->as_int(), std::numeric_limits<int64_t>::min());

    auto error_of = [](auto&& get) -> std::string {
        try {
            get();
        } catch (const Error& e) {
            return e.what();
        }
        return "no error";
    };
    const std::string name = (dir / "values.gguf").string();
    expect_mentions(error_of([&] { file.get_uint("missing"); }), {name, "'missing'", "not found"});
    expect_mentions(error_of([&] { file.get_uint("i8"); }), {name, "'i8'", "INT8", "-128"});
    expect_mentions(error_of([&] { file.get_uint("string", 0); }), {"'string'", "STRING", "integer"});
    expect_mentions(error_of([&] { file.get_float("bool.true"); }), {"'bool.true'", "BOOL", "number"});
    expect_mentions(error_of([&] { file.get_string("u8"); }), {"'u8'", "UINT8", "expected STRING"});
    expect_mentions(error_of([&] { file.get_bool("u8", false); }), {"'u8'", "expected BOOL"});
    expect_mentions(error_of([&] { file.get_array("u8"); }), {"'u8'", "expected ARRAY"});
    expect_mentions(error_of([&] { file.tensor("token_embd.weight"); }), {name, "'token_embd.weight'", "not found"});
}

TEST(GgufWriter, TensorsAreAlignedAndPadded) {
    ScratchDir dir;
    Writer writer;
    writer.add_kv("general.architecture", val<std::string>("test"));
    writer.set_alignment(64);
    const auto a = pattern(4 * 5, 1);    // F32 [5]: 20 bytes, then padding
    const auto b = pattern(18 * 2, 2);   // Q4_0 [32, 2]
    const auto c = pattern(66 * 1, 3);   // IQ2_XXS [256]: readable without kernels
    writer.add_tensor("a", GgmlType::F32, {5}, a);
    writer.add_tensor("b", GgmlType::Q4_0, {32, 2}, b);
    writer.add_tensor("c", GgmlType::IQ2_XXS, {256}, c);
    writer.write(dir / "t.gguf");

    const File file = File::open(dir / "t.gguf");
    EXPECT_EQ(file.alignment(), 64u);
    EXPECT_EQ(file.get_uint("general.alignment"), 64u);
    EXPECT_EQ(file.metadata()[1].key, "general.alignment");
    EXPECT_EQ(file.data_offset() % 64, 0u);
    ASSERT_EQ(file.tensors().size(), 3u);
    const std::vector<std::vector<uint8_t>> expected = {a, b, c};
    for (size_t i = 0; i < 3; ++i) {
        const TensorInfo& t = file.tensors()[i];
        EXPECT_EQ(t.offset % 64, 0u);
        EXPECT_EQ(std::vector<uint8_t>(t.data.begin(), t.data.end()), expected[i]) << t.name;
    }
    EXPECT_EQ(file.tensor("b").type.id, GgmlType::Q4_0);
    EXPECT_EQ(file.tensor("b").shape_string(), "[32, 2]");
    EXPECT_EQ(file.tensor("b").n_rows(), 2u);
    EXPECT_EQ(file.tensor("c").type.name, "IQ2_XXS");
    EXPECT_EQ(file.tensors()[1].offset, 64u);
    EXPECT_EQ(file.tensors()[2].offset, 128u);

    // Padding is zero, and the file ends aligned.
    const auto bytes = read_bytes(dir / "t.gguf");
    EXPECT_EQ(bytes.size() % 64, 0u);
    const size_t a_end = file.data_offset() + 20;
    for (size_t i = a_end; i < file.data_offset() + 64; ++i) ASSERT_EQ(bytes[i], 0) << i;
    EXPECT_FALSE(std::filesystem::exists(dir / "t.gguf.tmp"));
}

TEST(GgufWriter, SetAlignmentUpdatesTheKv) {
    ScratchDir dir;
    Writer writer;
    writer.add_kv("general.alignment", val<uint32_t>(128));
    writer.add_kv("x", val<uint8_t>(1));
    writer.set_alignment(32);  // stays listed, in place
    const auto w = pattern(6, 9);
    writer.add_tensor("w", GgmlType::F16, {3}, w);
    writer.write(dir / "a.gguf");
    const File file = File::open(dir / "a.gguf");
    EXPECT_EQ(file.metadata()[0].key, "general.alignment");
    EXPECT_EQ(file.alignment(), 32u);
    EXPECT_EQ(file.data_offset() % 32, 0u);

    Writer plain;
    plain.set_alignment(32);  // the default: no KV needed
    plain.write(dir / "b.gguf");
    EXPECT_TRUE(File::open(dir / "b.gguf").metadata().empty());
}

TEST(GgufWriter, FillsOneTensorAtATimeAndReportsProgress) {
    ScratchDir dir;
    Writer writer;
    std::vector<std::string> calls;
    for (int i = 0; i < 3; ++i) {
        const std::string name = "t" + std::to_string(i);
        writer.add_tensor(name, GgmlType::I32, {uint64_t(10 + i)}, [&calls, name, i](std::span<uint8_t> dst) {
            EXPECT_EQ(dst.size(), size_t(4 * (10 + i)));
            std::fill(dst.begin(), dst.end(), uint8_t(i + 1));
            calls.push_back("fill " + name);
        });
    }
    writer.write(dir / "p.gguf", [&](uint64_t done, uint64_t total) {
        calls.push_back("progress " + std::to_string(done) + "/" + std::to_string(total));
    });
    const std::vector<std::string> expected = {"fill t0", "progress 40/132", "fill t1", "progress 84/132",
                                               "fill t2", "progress 132/132"};
    EXPECT_EQ(calls, expected);
    const File file = File::open(dir / "p.gguf");
    EXPECT_EQ(file.tensor("t2").data[47], 3);
    EXPECT_EQ(file.tensor("t2").n_elements(), 12u);
}

TEST(GgufWriter, RejectsWhatTheReaderWouldReject) {
    Writer writer;
    writer.add_kv("a", val<uint8_t>(1));
    auto error_of = [](auto&& f) -> std::string {
        try {
            f();
        } catch (const Error& e) {
            return e.what();
        }
        return "no error";
    };
    expect_mentions(error_of([&] { writer.add_kv("a", val<uint8_t>(2)); }), {"duplicate KV 'a'"});
    expect_mentions(error_of([&] { writer.add_kv("general.alignment", val<uint64_t>(32)); }),
                    {"general.alignment", "UINT32", "UINT64"});
    expect_mentions(error_of([&] { writer.set_alignment(24); }), {"24", "power of two"});
    expect_mentions(error_of([&] { writer.add_kv("mixed", array_of(ValueType::UINT8, {val<int8_t>(1)})); }),
                    {"'mixed'", "element 0", "INT8", "UINT8"});
    Value deep = array_of(ValueType::UINT8, {});
    for (int i = 0; i < 8; ++i) deep = array_of(ValueType::ARRAY, {deep});
    expect_mentions(error_of([&] { writer.add_kv("deep", deep); }), {"'deep'", "nested 9 deep"});
    expect_mentions(error_of([&] { writer.add_tensor("w", GgmlType::Q4_0, {48}, pattern(27, 0)); }),
                    {"'w'", "[48]", "block size 32"});
    expect_mentions(error_of([&] { writer.add_tensor("w", GgmlType::F32, {4}, pattern(15, 0)); }),
                    {"'w'", "needs 16 bytes, 15 given"});
    expect_mentions(error_of([&] { writer.add_tensor("w", GgmlType::F32, {1, 1, 1, 1, 1}, pattern(4, 0)); }),
                    {"'w'", "n_dims"});
    expect_mentions(error_of([&] { writer.add_tensor("w", GgmlType::F32, {4, 0}, pattern(0, 0)); }),
                    {"'w'", "dimension is 0"});
    writer.add_tensor("w", GgmlType::F32, {1}, pattern(4, 0));
    expect_mentions(error_of([&] { writer.add_tensor("w", GgmlType::F32, {1}, pattern(4, 0)); }),
                    {"duplicate tensor name 'w'"});
}

TEST(GgufWriter, ReportsIoErrorsAndLeavesNoPartialFile) {
    ScratchDir dir;
    Writer writer;
    writer.add_kv("x", val<uint8_t>(1));
    try {
        writer.write((dir / "no-such-dir" / "m.gguf").string());
        FAIL() << "expected an Error";
    } catch (const Error& e) {
        expect_mentions(e.what(), {"no-such-dir/m.gguf", "cannot create", "No such file or directory"});
    }

    writer.add_tensor("w", GgmlType::F32, {1}, [](std::span<uint8_t>) { throw Error("fill failed"); });
    EXPECT_THROW(writer.write(dir / "m.gguf"), Error);
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));  // neither the file nor a temporary one
}

TEST(GgufWriter, CopyOfReproducesTheFile) {
    ScratchDir dir;
    Writer writer;
    for (const auto& kv : every_value_type()) writer.add_kv(kv.key, kv.value);
    writer.set_alignment(16);
    const auto a = pattern(34 * 6, 5), b = pattern(14, 6);
    writer.add_tensor("a", GgmlType::Q8_0, {64, 3}, a);
    writer.add_tensor("b", GgmlType::BF16, {7}, b);
    writer.write(dir / "orig.gguf");

    {
        const File original = File::open(dir / "orig.gguf");
        Writer copy = Writer::copy_of(original);
        copy.write(dir / "copy.gguf");
    }
    EXPECT_EQ(read_bytes(dir / "copy.gguf"), read_bytes(dir / "orig.gguf"));

    // The copy keeps the source mapping alive on its own.
    Writer late = Writer::copy_of(File::open(dir / "orig.gguf"));
    late.write(dir / "late.gguf");
    EXPECT_EQ(read_bytes(dir / "late.gguf"), read_bytes(dir / "orig.gguf"));
}

}  // namespace
}  // namespace tessera::gguf
