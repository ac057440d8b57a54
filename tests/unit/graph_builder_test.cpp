// Shape and type rules of the op builders, names, and views.
#include <gtest/gtest.h>

#include "ops/ops.hpp"
#include "support/error.hpp"

namespace tessera {
namespace {

template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

class GraphBuilder : public testing::Test {
protected:
    Graph g;
    std::vector<float> storage = std::vector<float>(64 * 64, 0.0f);
    Tensor* w = g.weight("w", GgmlType::F32, {64, 32, 1, 1}, storage.data());
    Tensor* x = g.input("x", GgmlType::F32, {64, 5, 1, 1});
};

TEST_F(GraphBuilder, MatmulShapes) {
    Tensor* y = matmul(w, x);
    EXPECT_EQ(y->ne, (Shape{32, 5, 1, 1}));
    EXPECT_EQ(y->type, GgmlType::F32);
    Tensor* x2 = g.input("x2", GgmlType::F32, {63, 5, 1, 1});
    EXPECT_NE(error_of([&] { matmul(w, x2); }).find("differ in dimension 0"), std::string::npos);
    Tensor* ids = g.input("ids", GgmlType::I32, {64, 1, 1, 1});
    EXPECT_NE(error_of([&] { matmul(w, ids); }).find("must be of type F32"), std::string::npos);
    // The addend: y's shape, or repeated over it (a bias row).
    EXPECT_EQ(matmul(w, x, ActivationPrecision::Q8, g.input("bias", GgmlType::F32, {32, 1, 1, 1}))->ne, y->ne);
    EXPECT_EQ(matmul(w, x, ActivationPrecision::Q8, y)->ne, y->ne);
    Tensor* bad = g.input("bad", GgmlType::F32, {31, 5, 1, 1});
    EXPECT_NE(error_of([&] { matmul(w, x, ActivationPrecision::Q8, bad); }).find("cannot be repeated"),
              std::string::npos);
}

TEST_F(GraphBuilder, NamesAreUniqueHandles) {
    Tensor* y = g.name(silu(x), "act");
    EXPECT_EQ(g.find("act"), y);
    EXPECT_EQ(&g.get("x"), x);
    EXPECT_THROW(g.name(rms_norm(x, 1e-5f), "act"), Error);
    EXPECT_THROW(g.get("missing"), Error);
    EXPECT_EQ(g.find("missing"), nullptr);
}

TEST_F(GraphBuilder, RmsNormWeightIsOneRow) {
    Tensor* gain = g.input("gain", GgmlType::F32, {64, 1, 1, 1});
    EXPECT_EQ(rms_norm(x, 1e-5f, gain)->ne, x->ne);
    Tensor* short_gain = g.input("short_gain", GgmlType::F32, {63, 1, 1, 1});
    EXPECT_NE(error_of([&] { rms_norm(x, 1e-5f, short_gain); }).find("one row of 64 values"), std::string::npos);
    Tensor* f16_gain = g.input("f16_gain", GgmlType::F16, {64, 1, 1, 1});
    EXPECT_NE(error_of([&] { rms_norm(x, 1e-5f, f16_gain); }).find("must be of type F32"), std::string::npos);
}

TEST_F(GraphBuilder, TensorsOfTwoGraphsDoNotMix) {
    Graph other;
    Tensor* z = other.input("z", GgmlType::F32, {64, 5, 1, 1});
    EXPECT_NE(error_of([&] { add(x, z); }).find("different graphs"), std::string::npos);
}

TEST_F(GraphBuilder, BroadcastRules) {
    Tensor* row = g.input("row", GgmlType::F32, {64, 1, 1, 1});
    EXPECT_EQ(mul(x, row)->ne, x->ne);
    Tensor* bad = g.input("bad", GgmlType::F32, {64, 3, 1, 1});
    EXPECT_NE(error_of([&] { add(x, bad); }).find("cannot be repeated"), std::string::npos);
    EXPECT_THROW(swiglu(x, row), Error);
}

TEST_F(GraphBuilder, ViewsShareStorageWithoutCopies) {
    Tensor* r = reshape(x, {32, 10, 1, 1});
    EXPECT_TRUE(r->is_view());
    EXPECT_EQ(r->storage_root(), x);
    Tensor* p = permute(reshape(x, {8, 8, 5, 1}), {0, 2, 1, 3});
    EXPECT_EQ(p->ne, (Shape{8, 5, 8, 1}));
    EXPECT_EQ(p->nb[1], 8u * 8 * 4);
    EXPECT_FALSE(p->is_contiguous());
    EXPECT_NE(error_of([&] { reshape(p, {64, 5, 1, 1}); }).find("not contiguous"), std::string::npos);
    Tensor* s = slice_rows(x, 1, 3);
    EXPECT_EQ(s->view_offset, 64u * 4);
    EXPECT_THROW(slice_rows(x, 3, 3), Error);
    EXPECT_THROW(reshape(x, {64, 6, 1, 1}), Error);
    EXPECT_THROW(view(x, {64, 6, 1, 1}, x->nb), Error);
}

TEST_F(GraphBuilder, AttentionRules) {
    Tensor* q = g.input("q", GgmlType::F32, {16, 6, 3, 1});
    Tensor* k = g.input("k", GgmlType::F16, {16, 10, 4, 1});
    Tensor* pos = g.input("pos", GgmlType::I32, {3, 1, 1, 1});
    EXPECT_NE(error_of([&] { attention(q, k, k, pos, 0.25f); }).find("multiple of kv heads"), std::string::npos);
    Tensor* k2 = g.input("k2", GgmlType::F16, {16, 10, 3, 1});
    EXPECT_EQ(attention(q, k2, k2, pos, 0.25f)->ne, q->ne);
    Tensor* pos2 = g.input("pos2", GgmlType::I32, {4, 1, 1, 1});
    EXPECT_THROW(attention(q, k2, k2, pos2, 0.25f), Error);
}

TEST_F(GraphBuilder, WritesIntoWeightsAreRefused) {
    Tensor* src = g.input("src", GgmlType::F32, {64, 32, 1, 1});
    EXPECT_NE(error_of([&] { copy(src, w); }).find("cannot write into weight"), std::string::npos);
    std::vector<uint16_t> cache(64 * 8);
    Tensor* c = g.external("cache", GgmlType::F16, {64, 8, 1, 1}, cache.data());
    Tensor* rows = g.input("rows", GgmlType::I32, {5, 1, 1, 1});
    EXPECT_EQ(set_rows(c, x, rows)->storage_root(), c);
}

TEST_F(GraphBuilder, RopeRules) {
    Tensor* q = g.input("q", GgmlType::F32, {16, 4, 3, 1});
    Tensor* pos = g.input("pos", GgmlType::I32, {3, 1, 1, 1});
    const RopeParams ok{.n_rot = 16, .freq_base = 10000, .freq_scale = 1, .mode = RopeMode::Normal};
    EXPECT_EQ(rope(q, pos, ok)->ne, q->ne);
    RopeParams odd = ok;
    odd.n_rot = 15;
    EXPECT_NE(error_of([&] { rope(q, pos, odd); }).find("must be even"), std::string::npos);
}

// Frequency factors (rope_freqs): F32, contiguous, one per rotated pair; they become src[2].
TEST_F(GraphBuilder, RopeFreqFactorRules) {
    Tensor* q = g.input("q", GgmlType::F32, {16, 4, 3, 1});
    Tensor* pos = g.input("pos", GgmlType::I32, {3, 1, 1, 1});
    const RopeParams p{.n_rot = 12, .freq_base = 500000, .freq_scale = 1, .mode = RopeMode::Normal};
    Tensor* factors = g.input("factors", GgmlType::F32, {6, 1, 1, 1});
    Tensor* y = rope(q, pos, p, factors);
    ASSERT_EQ(y->src.size(), 3u);
    EXPECT_EQ(y->src[2], factors);
    EXPECT_EQ(rope(q, pos, p)->src.size(), 2u);
    Tensor* too_many = g.input("too_many", GgmlType::F32, {8, 1, 1, 1});
    EXPECT_NE(error_of([&] { rope(q, pos, p, too_many); }).find("one divisor per rotated pair (n_rot/2 = 6"),
              std::string::npos);
    Tensor* f16 = g.input("f16", GgmlType::F16, {6, 1, 1, 1});
    EXPECT_NE(error_of([&] { rope(q, pos, p, f16); }).find("must be of type F32"), std::string::npos);
    Tensor* wide = g.input("wide", GgmlType::F32, {4, 2, 1, 1});
    Tensor* strided = view(wide, {3, 2, 1, 1}, wide->nb);  // 6 values, a gap after each 3
    EXPECT_NE(error_of([&] { rope(q, pos, p, strided); }).find("must be contiguous"), std::string::npos);
    Graph other;
    Tensor* elsewhere = other.input("factors", GgmlType::F32, {6, 1, 1, 1});
    EXPECT_NE(error_of([&] { rope(q, pos, p, elsewhere); }).find("different graphs"), std::string::npos);
}

}  // namespace
}  // namespace tessera
