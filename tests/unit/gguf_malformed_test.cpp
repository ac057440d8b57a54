// One test per class of malformed GGUF input: each builds a small file in
// memory and checks that parsing throws a tessera::Error naming the file,
// the field and the value.
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "gguf_test_util.hpp"
#include "models/gguf/file.hpp"

namespace tessera::gguf {
namespace {

using test::expect_mentions;
using test::GgufBytes;
using test::parse_error;

constexpr uint32_t kF32 = uint32_t(GgmlType::F32);
constexpr uint32_t kQ4_0 = uint32_t(GgmlType::Q4_0);
constexpr uint32_t kUint8 = uint32_t(ValueType::UINT8);
constexpr uint32_t kArray = uint32_t(ValueType::ARRAY);

// A file with `n_tensors` tensor infos written by `infos`, the header padded
// to the default alignment, then `data_bytes` bytes of tensor data.
std::vector<uint8_t> tensor_file(uint64_t n_tensors, const std::function<void(GgufBytes&)>& infos,
                                 uint64_t data_bytes) {
    GgufBytes b;
    b.header(n_tensors, 1).kv_str("general.architecture", "llama");
    infos(b);
    b.pad_to(kDefaultAlignment).zeros(data_bytes);
    return b.bytes();
}

TEST(GgufMalformed, BadMagic) {
    GgufBytes b;
    b.u32(0x4c4d4747).u32(3).u64(0).u64(0);  // "GGML"
    expect_mentions(parse_error(b.bytes(), "model.bin"), {"model.bin", "magic", "'GGML'", "not a GGUF file"});
}

TEST(GgufMalformed, UnsupportedVersion) {
    expect_mentions(parse_error(GgufBytes().header(0, 0, 1).bytes()), {"bad.gguf", "version", "version 1"});
    expect_mentions(parse_error(GgufBytes().header(0, 0, 4).bytes()), {"version", "unsupported GGUF version 4"});
    expect_mentions(parse_error(GgufBytes().header(0, 0, 0x03000000).bytes()), {"version", "big-endian"});
}

TEST(GgufMalformed, VersionTwoIsRead) {
    GgufBytes b;
    b.header(0, 1, 2).kv_u32("x", 7);
    EXPECT_EQ(File::parse(b.bytes(), "v2.gguf").version(), 2u);
}

// A valid file whose last tensor ends the file exactly, so every proper prefix
// misses bytes the reader needs (trailing padding after the last tensor is optional).
std::vector<uint8_t> small_valid_file() {
    GgufBytes b;
    b.header(2, 4)
        .kv_str("general.name", "tiny")
        .kv_u32("general.alignment", 16)
        .str("floats").u32(uint32_t(ValueType::ARRAY)).u32(uint32_t(ValueType::FLOAT32)).u64(2).u32(0).u32(0x3f800000)
        .str("nested").u32(kArray).u32(kArray).u64(1).u32(uint32_t(ValueType::STRING)).u64(1).str("ab")
        .tensor_info("a", {32}, kQ4_0, 0)
        .tensor_info("b", {4}, kF32, 32)
        .pad_to(16);
    b.zeros(32 + 16);
    return b.bytes();
}

TEST(GgufMalformed, TruncatedAtEveryOffset) {
    const std::vector<uint8_t> bytes = small_valid_file();
    const File file = File::parse(bytes, "small.gguf");
    ASSERT_EQ(file.tensors().size(), 2u);
    ASSERT_EQ(file.tensors()[1].data.data() + file.tensors()[1].data.size(), bytes.data() + bytes.size());
    for (size_t n = 0; n < bytes.size(); ++n) {
        const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + std::ptrdiff_t(n));
        const std::string msg = parse_error(prefix, "cut.gguf");
        ASSERT_NE(msg.find("cut.gguf"), std::string::npos) << "at length " << n << ": " << msg;
        const bool names_cut = msg.find("truncated") != std::string::npos ||
                               msg.find("exceed") != std::string::npos || msg.find("outside") != std::string::npos ||
                               msg.find("need at least") != std::string::npos ||
                               msg.find("beyond the end") != std::string::npos;
        ASSERT_TRUE(names_cut) << "at length " << n << ": " << msg;
    }
}

TEST(GgufMalformed, TruncatedFieldIsNamed) {
    GgufBytes b;
    b.header(0, 1).str("general.name").u32(uint32_t(ValueType::UINT32)).u8(1);
    expect_mentions(parse_error(b.bytes()), {"KV #0 'general.name'", "value", "truncated", "needs 4 bytes"});
}

TEST(GgufMalformed, TensorCountExceedsFile) {
    expect_mentions(parse_error(GgufBytes().header(uint64_t(1) << 60, 0).bytes()),
                    {"tensor_count", "1152921504606846976"});
    expect_mentions(parse_error(GgufBytes().header(~uint64_t{0}, 0).bytes()), {"tensor_count", "18446744073709551615"});
}

TEST(GgufMalformed, KvCountExceedsFile) {
    expect_mentions(parse_error(GgufBytes().header(0, uint64_t(1) << 62).kv_u32("a", 1).bytes()),
                    {"kv_count", "4611686018427387904"});
}

TEST(GgufMalformed, StringLengthExceedsFile) {
    GgufBytes key;
    key.header(0, 1).u64(~uint64_t{0}).u32(kUint8).u8(0);
    expect_mentions(parse_error(key.bytes()), {"KV #0", "key", "string length 18446744073709551615"});

    GgufBytes value;
    value.header(0, 1).str("general.name").u32(uint32_t(ValueType::STRING)).u64(100).zeros(10);
    expect_mentions(parse_error(value.bytes()), {"'general.name'", "string length 100", "10 bytes left"});
}

TEST(GgufMalformed, HugeArrayCountFailsWithoutAllocating) {
    GgufBytes b;
    b.header(0, 1).str("tokens").u32(kArray).u32(kUint8).u64(uint64_t(1) << 60).zeros(64);
    expect_mentions(parse_error(b.bytes()), {"'tokens'", "array count", "1152921504606846976", "UINT8"});

    GgufBytes strings;
    strings.header(0, 1).str("tokens").u32(kArray).u32(uint32_t(ValueType::STRING)).u64(100).zeros(8 * 99);
    expect_mentions(parse_error(strings.bytes()), {"'tokens'", "array count", "100 STRING elements"});
}

TEST(GgufMalformed, ArrayNestingTooDeep) {
    GgufBytes b;
    b.header(0, 1).str("deep").u32(kArray);
    for (int depth = 0; depth <= kMaxArrayDepth; ++depth) b.u32(kArray).u64(1);
    b.u32(kUint8).u64(0);
    expect_mentions(parse_error(b.bytes()), {"'deep'", "nested 9 deep", "limit of 8"});
}

TEST(GgufMalformed, DuplicateKey) {
    GgufBytes b;
    b.header(0, 3).kv_u32("a", 1).kv_u32("b", 2).kv_str("a", "again");
    expect_mentions(parse_error(b.bytes()), {"KV #2 'a'", "duplicate key 'a'", "KV #0"});
}

TEST(GgufMalformed, DuplicateTensorName) {
    const auto bytes = tensor_file(2, [](GgufBytes& b) {
        b.tensor_info("w", {8}, kF32, 0).tensor_info("w", {8}, kF32, 32);
    }, 64);
    expect_mentions(parse_error(bytes), {"tensor #1 'w'", "duplicate tensor name 'w'", "tensor #0"});
}

TEST(GgufMalformed, UnknownTensorType) {
    for (uint32_t id : {4u, 5u, 31u, 99u}) {
        const auto bytes = tensor_file(1, [&](GgufBytes& b) { b.tensor_info("w", {32}, id, 0); }, 1024);
        expect_mentions(parse_error(bytes), {"tensor #0 'w'", "type", "unknown ggml type id " + std::to_string(id)});
    }
}

TEST(GgufMalformed, UnknownValueType) {
    GgufBytes kv;
    kv.header(0, 1).str("k").u32(13).u32(0);
    expect_mentions(parse_error(kv.bytes()), {"KV #0 'k'", "value type", "unknown GGUF value type 13"});

    GgufBytes elem;
    elem.header(0, 1).str("k").u32(kArray).u32(77).u64(0);
    expect_mentions(parse_error(elem.bytes()), {"'k'", "array element type", "unknown GGUF value type 77"});
}

TEST(GgufMalformed, InvalidBool) {
    GgufBytes b;
    b.header(0, 1).str("flag").u32(uint32_t(ValueType::BOOL)).u8(2);
    expect_mentions(parse_error(b.bytes()), {"'flag'", "BOOL must be 0 or 1, found 2"});
}

TEST(GgufMalformed, NDimsOutOfRange) {
    for (uint32_t n_dims : {0u, 5u, 0xffffffffu}) {
        GgufBytes b;
        b.header(1, 0).str("w").u32(n_dims).zeros(64);
        expect_mentions(parse_error(b.bytes()), {"tensor #0 'w'", "n_dims", std::to_string(n_dims) + " is outside 1..4"});
    }
}

TEST(GgufMalformed, ZeroDimension) {
    const auto bytes = tensor_file(1, [](GgufBytes& b) { b.tensor_info("w", {8, 0}, kF32, 0); }, 64);
    expect_mentions(parse_error(bytes), {"tensor #0 'w'", "ne[1]", "dimension is 0"});
}

TEST(GgufMalformed, HugeDimension) {
    const auto bytes = tensor_file(1, [](GgufBytes& b) { b.tensor_info("w", {uint64_t(1) << 63}, kF32, 0); }, 64);
    expect_mentions(parse_error(bytes), {"tensor #0 'w'", "ne[0]", "9223372036854775808", "int64"});
}

TEST(GgufMalformed, ShapeProductOverflows) {
    const uint64_t big = uint64_t(1) << 32;
    const auto elems = tensor_file(1, [&](GgufBytes& b) { b.tensor_info("w", {big, big}, kF32, 0); }, 64);
    expect_mentions(parse_error(elems), {"tensor #0 'w'", "shape", "[4294967296, 4294967296]", "overflows"});

    // The element count fits int64, the byte count (8 bytes each) does not fit uint64.
    const auto bytes = tensor_file(1, [](GgufBytes& b) {
        b.tensor_info("w", {uint64_t(1) << 62}, uint32_t(GgmlType::F64), 0);
    }, 64);
    expect_mentions(parse_error(bytes), {"tensor #0 'w'", "shape", "4611686018427387904", "F64", "byte size overflows"});
}

TEST(GgufMalformed, RowNotMultipleOfBlockSize) {
    const auto bytes = tensor_file(1, [](GgufBytes& b) { b.tensor_info("w", {48, 2}, kQ4_0, 0); }, 1024);
    expect_mentions(parse_error(bytes), {"tensor #0 'w'", "ne[0]", "48", "Q4_0 block size 32"});
}

TEST(GgufMalformed, TensorDataOutsideFile) {
    const auto past_end = tensor_file(1, [](GgufBytes& b) { b.tensor_info("w", {16}, kF32, 0); }, 63);
    expect_mentions(parse_error(past_end), {"tensor #0 'w'", "data", "64 bytes at offset 0", "outside the file", "has 63 bytes"});

    const auto far_offset = tensor_file(1, [](GgufBytes& b) {
        b.tensor_info("w", {8}, kF32, ~uint64_t{0} - 31);
    }, 64);
    expect_mentions(parse_error(far_offset), {"tensor #0 'w'", "data", "18446744073709551584", "outside the file"});
}

TEST(GgufMalformed, MisalignedOffset) {
    const auto bytes = tensor_file(2, [](GgufBytes& b) {
        b.tensor_info("a", {4}, kF32, 0).tensor_info("b", {4}, kF32, 16);
    }, 64);
    expect_mentions(parse_error(bytes), {"tensor #1 'b'", "offset", "16 is not a multiple of the alignment 32"});
}

TEST(GgufMalformed, OverlappingTensorData) {
    const auto bytes = tensor_file(2, [](GgufBytes& b) {
        b.tensor_info("a", {16}, kF32, 32).tensor_info("b", {16}, kF32, 0);
    }, 128);
    expect_mentions(parse_error(bytes), {"tensor #0 'a'", "data", "[32, 96)", "overlap tensor #1 'b'", "[0, 64)"});
}

TEST(GgufMalformed, InvalidAlignmentValue) {
    for (uint32_t alignment : {0u, 3u, 48u}) {
        GgufBytes b;
        b.header(0, 1).kv_u32("general.alignment", alignment);
        expect_mentions(parse_error(b.bytes()),
                        {"'general.alignment'", std::to_string(alignment) + " is not a nonzero power of two"});
    }
}

TEST(GgufMalformed, AlignmentOfWrongType) {
    GgufBytes b;
    b.header(0, 1).str("general.alignment").u32(uint32_t(ValueType::UINT64)).u64(32);
    expect_mentions(parse_error(b.bytes()), {"'general.alignment'", "must be UINT32", "UINT64"});
}

TEST(GgufMalformed, DataSectionStartsPastEnd) {
    GgufBytes b;
    b.header(1, 0).tensor_info("w", {1}, uint32_t(GgmlType::I8), 0);
    expect_mentions(parse_error(b.bytes()), {"data section", "beyond the end of the file"});
}

TEST(GgufMalformed, NonPrintableNamesAreEscaped) {
    GgufBytes b;
    b.header(0, 2).kv_u32(std::string_view("a\n\x01", 3), 1).kv_u32(std::string_view("a\n\x01", 3), 2);
    expect_mentions(parse_error(b.bytes()), {"'a\\x0a\\x01'"});
}

}  // namespace
}  // namespace tessera::gguf
