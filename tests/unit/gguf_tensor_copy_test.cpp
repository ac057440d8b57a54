// Tensors of a mapped file copied onto huge pages (gguf::File::
// copy_tensors_to_huge_pages): what a file too large to copy whole does
// (model::Model::copy_tensors_to_huge_pages), the tensors a token reads whole
// first, then stacks of experts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
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

// A stack of 5 matrices, a vector (100 floats) and a matrix (64 x 3), in
// that file order, ranked 1, 0 and none: the vector, then the stack, copied
// 64-byte aligned with their bytes; the matrix left in the mapping.
TEST(GgufTensorCopy, RankedTensorsMoveToHugePagesLowestRankFirst) {
    gguf::test::ScratchDir dir;
    const std::vector<uint8_t> stack = pattern(16 * 4 * 5 * 4, 3), vec = pattern(100 * 4, 1), mat = pattern(64 * 3 * 4, 2);
    gguf::Writer w;
    w.add_tensor("stack", GgmlType::F32, {16, 4, 5}, stack);
    w.add_tensor("vec", GgmlType::F32, {100}, vec);
    w.add_tensor("mat", GgmlType::F32, {64, 3}, mat);
    w.write((dir / "m.gguf").string());

    gguf::File file = gguf::File::open((dir / "m.gguf").string());
    ASSERT_FALSE(file.is_copy());
    EXPECT_EQ(file.copied_bytes(), 0u);
    const uint64_t copied = file.copy_tensors_to_huge_pages([](const gguf::TensorInfo& t) {
        return t.name == "vec" ? 0 : t.name == "stack" ? 1 : -1;
    });
    EXPECT_EQ(copied, 448u + 1280u);  // 400 bytes rounded up to 64, and 1280
    EXPECT_EQ(file.copied_bytes(), copied);
    const auto& v = file.tensor("vec").data;
    const auto& m = file.tensor("mat").data;
    const auto& s = file.tensor("stack").data;
    EXPECT_FALSE(inside(v, file.bytes()));
    EXPECT_FALSE(inside(s, file.bytes()));
    EXPECT_TRUE(inside(m, file.bytes()));
    EXPECT_EQ(s.data(), v.data() + 448) << "the lower rank first, whatever the file order";
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % 64, 0u);
    EXPECT_TRUE(std::equal(vec.begin(), vec.end(), v.begin(), v.end()));
    EXPECT_TRUE(std::equal(mat.begin(), mat.end(), m.begin(), m.end()));
    EXPECT_TRUE(std::equal(stack.begin(), stack.end(), s.begin(), s.end()));
    EXPECT_EQ(file.copy_tensors_to_huge_pages([](const gguf::TensorInfo&) { return 0; }), 0u) << "copied twice";
}

// Nothing ranked, nothing copied; a whole-file copy counts all its bytes.
TEST(GgufTensorCopy, CopiedBytesCountWhatIsHeldPrivately) {
    gguf::test::ScratchDir dir;
    const std::vector<uint8_t> mat = pattern(64 * 3 * 4, 4);
    gguf::Writer w;
    w.add_tensor("mat", GgmlType::F32, {64, 3}, mat);
    w.write((dir / "m.gguf").string());
    gguf::File mapped = gguf::File::open((dir / "m.gguf").string());
    EXPECT_EQ(mapped.copy_tensors_to_huge_pages([](const gguf::TensorInfo&) { return -1; }), 0u);
    EXPECT_TRUE(inside(mapped.tensor("mat").data, mapped.bytes()));
    const gguf::File copy = gguf::File::open((dir / "m.gguf").string(), FileMemory::HugePageCopy);
    ASSERT_TRUE(copy.is_copy());
    EXPECT_EQ(copy.copied_bytes(), copy.bytes().size());
}

// A small mixture-of-experts model: every tensor copied (there is room), the
// 3-D stacks of experts after all the others.
TEST(GgufTensorCopy, ModelCopiesDenseTensorsBeforeExperts) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const auto path = dir / "arch" / "models" / "tiny-qwen3moe-Q8_0.gguf";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
    model::Model m(gguf::File::open(path.string()));
    const uint64_t copied = m.copy_tensors_to_huge_pages();
    EXPECT_GT(copied, 0u);
    EXPECT_EQ(copied, m.file().copied_bytes());
    const uint8_t* last_dense = nullptr;
    const uint8_t* first_stack = nullptr;
    for (const gguf::TensorInfo* t : m.resolved_tensors()) {
        EXPECT_FALSE(inside(t->data, m.file().bytes())) << t->name;
        if (t->ne.size() == 3)
            first_stack = first_stack ? std::min(first_stack, t->data.data()) : t->data.data();
        else
            last_dense = std::max(last_dense, t->data.data());
    }
    ASSERT_NE(first_stack, nullptr);
    EXPECT_LT(last_dense, first_stack);
}

}  // namespace
}  // namespace tessera
