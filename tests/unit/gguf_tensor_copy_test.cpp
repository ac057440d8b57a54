// Tensors of a mapped file copied onto huge pages (gguf::File::
// copy_tensors_to_huge_pages): what a file too large to copy whole does with
// the tensors a token reads whole (model::Model::
// copy_dense_tensors_to_huge_pages), leaving the stacks of experts mapped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "conformance.hpp"
#include "gguf_test_util.hpp"
#include "models/gguf/file.hpp"
#include "models/gguf/writer.hpp"
#include "models/model.hpp"

namespace tessera {
namespace {

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
    std::vector<uint8_t> bytes(n);
    for (size_t i = 0; i < n; ++i) bytes[i] = uint8_t(seed + i * 7 + i / 251);
    return bytes;
}

bool inside(std::span<const uint8_t> part, std::span<const uint8_t> whole) {
    return part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size();
}

// A vector (100 floats), a matrix (64 x 3) and a stack of 5 matrices: the
// first two copied, 64-byte aligned, with their bytes; the stack left in
// the mapping.
TEST(GgufTensorCopy, PickedTensorsMoveToHugePagesWithTheirBytes) {
    gguf::test::ScratchDir dir;
    const std::vector<uint8_t> vec = pattern(100 * 4, 1), mat = pattern(64 * 3 * 4, 2), stack = pattern(16 * 4 * 5 * 4, 3);
    gguf::Writer w;
    w.add_tensor("vec", GgmlType::F32, {100}, vec);
    w.add_tensor("mat", GgmlType::F32, {64, 3}, mat);
    w.add_tensor("stack", GgmlType::F32, {16, 4, 5}, stack);
    w.write((dir / "m.gguf").string());

    gguf::File file = gguf::File::open((dir / "m.gguf").string());
    ASSERT_FALSE(file.is_copy());
    EXPECT_EQ(file.copied_bytes(), 0u);
    const uint64_t copied = file.copy_tensors_to_huge_pages([](const gguf::TensorInfo& t) { return t.ne.size() < 3; });
    EXPECT_EQ(copied, 448u + 768u);  // 400 bytes rounded up to 64, and 768
    EXPECT_EQ(file.copied_bytes(), copied);
    const auto& v = file.tensor("vec").data;
    const auto& m = file.tensor("mat").data;
    const auto& s = file.tensor("stack").data;
    EXPECT_FALSE(inside(v, file.bytes()));
    EXPECT_FALSE(inside(m, file.bytes()));
    EXPECT_TRUE(inside(s, file.bytes()));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % 64, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(m.data()) % 64, 0u);
    EXPECT_TRUE(std::equal(vec.begin(), vec.end(), v.begin(), v.end()));
    EXPECT_TRUE(std::equal(mat.begin(), mat.end(), m.begin(), m.end()));
    EXPECT_TRUE(std::equal(stack.begin(), stack.end(), s.begin(), s.end()));
}

// Nothing picked, nothing copied; a whole-file copy counts all its bytes.
TEST(GgufTensorCopy, CopiedBytesCountWhatIsHeldPrivately) {
    gguf::test::ScratchDir dir;
    const std::vector<uint8_t> mat = pattern(64 * 3 * 4, 4);
    gguf::Writer w;
    w.add_tensor("mat", GgmlType::F32, {64, 3}, mat);
    w.write((dir / "m.gguf").string());
    gguf::File mapped = gguf::File::open((dir / "m.gguf").string());
    EXPECT_EQ(mapped.copy_tensors_to_huge_pages([](const gguf::TensorInfo&) { return false; }), 0u);
    EXPECT_TRUE(inside(mapped.tensor("mat").data, mapped.bytes()));
    const gguf::File copy = gguf::File::open((dir / "m.gguf").string(), FileMemory::HugePageCopy);
    ASSERT_TRUE(copy.is_copy());
    EXPECT_EQ(copy.copied_bytes(), copy.bytes().size());
}

// A mixture-of-experts model: every 1-D and 2-D tensor copied, every 3-D
// stack of experts still read from the mapping, the model's tensors the file's.
TEST(GgufTensorCopy, ModelCopiesAllButTheExperts) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const auto path = dir / "arch" / "models" / "tiny-qwen3moe-Q8_0.gguf";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
    model::Model m(gguf::File::open(path.string()));
    EXPECT_GT(m.copy_dense_tensors_to_huge_pages(), 0u);
    int stacks = 0;
    for (const gguf::TensorInfo* t : m.resolved_tensors()) {
        const bool stack = t->ne.size() == 3;
        stacks += stack;
        EXPECT_EQ(inside(t->data, m.file().bytes()), stack) << t->name;
    }
    EXPECT_GT(stacks, 0);
    EXPECT_EQ(m.copy_dense_tensors_to_huge_pages(), 0u) << "copied twice";
}

}  // namespace
}  // namespace tessera
