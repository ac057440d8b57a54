// Architecture descriptions against files: required biases (Qwen2's q/k/v)
// must be in the file with the projection's output size, optional ones
// (Llama's) are taken where the file has them; a tensor no description
// reads, a rope scaling tessera does not implement and value heads of
// another size than key heads are refused by name.
#include <gtest/gtest.h>

#include <algorithm>

#include "gguf_test_util.hpp"
#include "load_error.hpp"
#include "models/gguf/file.hpp"
#include "models/gguf/writer.hpp"
#include "models/model.hpp"
#include "models/synthetic_model.hpp"
#include "support/error.hpp"

namespace tessera {
namespace {

using test::load_error;

using gguf::test::ScratchDir;

const model::ModelShape kShape{.name = "tiny", .n_vocab = 300, .n_embd = 64, .n_layer = 2, .n_head = 4,
                               .n_head_kv = 2, .n_ff = 96, .n_ctx = 64};

std::string synthetic(const ScratchDir& dir, const std::string& arch) {
    const std::string path = (dir / (arch + ".gguf")).string();
    model::write_synthetic_model({.shape = kShape, .arch = arch, .plan = QuantizePlan::parse("F32")}, path);
    return path;
}

// A copy of a file of architecture `from` as architecture `arch` (keys
// renamed), without tensor `drop`, with tensor `shrink` cut to half its
// length, with `extra` F32 tensors of 16 values added and keys `set` set.
struct Rewrite {
    std::string arch, drop = "", shrink = "";
    std::vector<std::string> extra = {};
    std::vector<gguf::KeyValue> set = {};
};

std::string rewrite(const ScratchDir& dir, const gguf::File& source, const Rewrite& r) {
    const std::string from = source.get_string("general.architecture");
    gguf::Writer w;
    auto is_set = [&](const std::string& key) {
        return std::any_of(r.set.begin(), r.set.end(), [&](const gguf::KeyValue& kv) { return kv.key == key; });
    };
    for (const gguf::KeyValue& kv : source.metadata()) {
        std::string key = kv.key;
        if (key.starts_with(from + ".")) key = r.arch + key.substr(from.size());
        if (is_set(key)) continue;
        if (key == "general.architecture") w.add_kv(key, gguf::Value{r.arch});
        else w.add_kv(key, kv.value);
    }
    for (const gguf::KeyValue& kv : r.set) w.add_kv(kv.key, kv.value);
    for (const gguf::TensorInfo& t : source.tensors()) {
        if (t.name == r.drop) continue;
        if (t.name == r.shrink) w.add_tensor(t.name, t.type.id, {t.ne[0] / 2}, t.data.first(t.data.size() / 2));
        else w.add_tensor(t.name, t.type.id, t.ne, t.data);
    }
    static const std::vector<float> sixteen(16, 1.0f);
    for (const std::string& name : r.extra)
        w.add_tensor(name, GgmlType::F32, {16},
                     std::span(reinterpret_cast<const uint8_t*>(sixteen.data()), sixteen.size() * 4));
    const std::string path = (dir / (r.arch + "-rewritten.gguf")).string();
    w.write(path);
    return path;
}

TEST(ModelDescription, Qwen2HasQkvBiases) {
    ScratchDir dir;
    const model::Model m = model::Model::open(synthetic(dir, "qwen2"));
    for (int l = 0; l < 2; ++l) {
        ASSERT_NE(m.bias("attn_q", l), nullptr);
        EXPECT_EQ(m.bias("attn_q", l)->name, "blk." + std::to_string(l) + ".attn_q.bias");
        EXPECT_EQ(m.bias("attn_k", l)->ne, (std::vector<uint64_t>{32}));  // n_head_kv * head_dim
        EXPECT_NE(m.bias("attn_v", l), nullptr);
        EXPECT_EQ(m.bias("attn_output", l), nullptr);
        EXPECT_EQ(m.bias("ffn_up", l), nullptr);
    }
    EXPECT_EQ(m.bias("output"), nullptr);
}

TEST(ModelDescription, Qwen2BiasesAreRequiredWithTheProjectionsOutputSize) {
    ScratchDir dir;
    const gguf::File qwen2 = gguf::File::open(synthetic(dir, "qwen2"));
    gguf::test::expect_mentions(load_error(rewrite(dir, qwen2, {.arch = "qwen2", .drop = "blk.1.attn_v.bias"})),
                                {"blk.1.attn_v.bias", "missing"});
    gguf::test::expect_mentions(load_error(rewrite(dir, qwen2, {.arch = "qwen2", .shrink = "blk.0.attn_q.bias"})),
                                {"blk.0.attn_q.bias", "[32]", "expected [64]"});
}

TEST(ModelDescription, LlamaTakesOptionalBiasesWhereTheFileHasThem) {
    ScratchDir dir;
    const model::Model plain = model::Model::open(synthetic(dir, "llama"));
    EXPECT_EQ(plain.bias("attn_q", 0), nullptr);

    const model::Model biased = model::Model::open(rewrite(dir, gguf::File::open(synthetic(dir, "qwen2")), {.arch = "llama"}));
    EXPECT_EQ(biased.architecture().name, "llama");
    ASSERT_NE(biased.bias("attn_k", 1), nullptr);
    EXPECT_EQ(biased.bias("attn_k", 1)->name, "blk.1.attn_k.bias");
    EXPECT_EQ(biased.bias("ffn_down", 1), nullptr);
}

TEST(ModelDescription, TensorsTheArchitectureDoesNotUseAreRefusedByName) {
    ScratchDir dir;
    const gguf::File llama = gguf::File::open(synthetic(dir, "llama"));
    gguf::test::expect_mentions(load_error(rewrite(dir, llama, {.arch = "llama", .extra = {"blk.0.attn_sinks.weight"}})),
                                {"1 tensor", "architecture 'llama' does not use", "'blk.0.attn_sinks.weight'"});
    // The first five by name, and how many more.
    const std::string many = load_error(rewrite(
        dir, llama, {.arch = "llama", .extra = {"x.0", "x.1", "x.2", "x.3", "x.4", "x.5", "x.6"}}));
    gguf::test::expect_mentions(many, {"7 tensors", "'x.0'", "'x.4'", "and 2 more"});
    EXPECT_EQ(many.find("'x.5'"), std::string::npos) << many;
    // Qwen2 has no rope frequency factors: a file with them is not a qwen2 file.
    const gguf::File qwen2 = gguf::File::open(synthetic(dir, "qwen2"));
    gguf::test::expect_mentions(load_error(rewrite(dir, qwen2, {.arch = "qwen2", .extra = {"rope_freqs.weight"}})),
                                {"architecture 'qwen2' does not use", "'rope_freqs.weight'"});
}

TEST(ModelDescription, LlamaTakesRopeFreqsOfHalfTheRotatedDims) {
    ScratchDir dir;
    const gguf::File llama = gguf::File::open(synthetic(dir, "llama"));
    // head_dim 16: 8 pairs, so the 16 factors of `extra` have the wrong size.
    gguf::test::expect_mentions(load_error(rewrite(dir, llama, {.arch = "llama", .extra = {"rope_freqs.weight"}})),
                                {"rope_freqs.weight", "[16]", "expected [8]"});
}

TEST(ModelDescription, RopeScalingTypesOtherThanNoneAndLinearAreRefused) {
    ScratchDir dir;
    const gguf::File llama = gguf::File::open(synthetic(dir, "llama"));
    for (const char* type : {"yarn", "longrope", "llama3x"}) {
        const Rewrite r{.arch = "llama", .set = {{"llama.rope.scaling.type", gguf::Value{std::string(type)}}}};
        gguf::test::expect_mentions(load_error(rewrite(dir, llama, r)),
                                    {std::string("rope scaling type '") + type + "'", "not supported"});
    }
    // Type "none" ignores a factor; linear (also when no type is named) divides positions by it.
    auto scale_of = [&](std::vector<gguf::KeyValue> set) {
        return model::Model::open(rewrite(dir, llama, {.arch = "llama", .set = std::move(set)})).hparams().rope_freq_scale;
    };
    const gguf::KeyValue factor4{"llama.rope.scaling.factor", gguf::Value{4.0f}};
    EXPECT_EQ(scale_of({factor4, {"llama.rope.scaling.type", gguf::Value{std::string("none")}}}), 1.0f);
    EXPECT_EQ(scale_of({factor4, {"llama.rope.scaling.type", gguf::Value{std::string("linear")}}}), 0.25f);
    EXPECT_EQ(scale_of({factor4}), 0.25f);
    EXPECT_EQ(scale_of({}), 1.0f);
}

TEST(ModelDescription, ValueHeadsOfAnotherSizeThanKeyHeadsAreRefused) {
    ScratchDir dir;
    const gguf::File qwen2 = gguf::File::open(synthetic(dir, "qwen2"));
    const Rewrite r{.arch = "qwen2", .set = {{"qwen2.attention.value_length", gguf::Value{uint32_t(8)}}}};
    gguf::test::expect_mentions(load_error(rewrite(dir, qwen2, r)), {"value_length 8", "key_length 16"});
}

TEST(ModelDescription, Llama3RopeScalingGivesTheConvertersDivisors) {
    // conformance/arch's tiny-llama3: head_dim 32, base 500000, factor 32, low 1, high 4, original context 8192.
    const std::vector<float> d = model::Llama3RopeScaling{.factor = 32}.freq_divisors(32, 500000.0f);
    ASSERT_EQ(d.size(), 16u);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(d[size_t(i)], 1.0f) << i;
    EXPECT_NEAR(d[8], 3.2923f, 1e-4f);
    for (int i = 9; i < 16; ++i) EXPECT_EQ(d[size_t(i)], 32.0f) << i;
}

TEST(ModelDescription, SyntheticLlama3HasRopeFreqsAndTiedOutput) {
    ScratchDir dir;
    model::ModelShape shape = kShape;
    shape.tied_output = true;
    shape.llama3_rope = model::Llama3RopeScaling{.factor = 8, .original_context = 64};
    const std::string path = (dir / "llama3.gguf").string();
    model::write_synthetic_model({.shape = shape, .arch = "llama", .plan = QuantizePlan::parse("F32")}, path);
    const model::Model m = model::Model::open(path);
    EXPECT_TRUE(m.output_is_tied());
    EXPECT_EQ(m.file().find_tensor("output.weight"), nullptr);
    ASSERT_NE(m.find("rope_freqs"), nullptr);
    EXPECT_EQ(m.find("rope_freqs")->ne, (std::vector<uint64_t>{8}));
    // A Llama-2-style shape has neither.
    const model::Model plain = model::Model::open(synthetic(dir, "llama"));
    EXPECT_FALSE(plain.output_is_tied());
    EXPECT_EQ(plain.find("rope_freqs"), nullptr);
}

TEST(ModelDescription, ATiedEmbeddingGetsTheOutputsTypeInMixes) {
    const QuantizePlan q4km = QuantizePlan::parse("Q4_K_M");
    EXPECT_EQ(choose_tensor_type("token_embd.weight", 256, 2, GgmlType::F32, q4km, 16, /*output_tied=*/true),
              GgmlType::Q6_K);
    EXPECT_EQ(choose_tensor_type("token_embd.weight", 256, 2, GgmlType::F32, q4km, 16, /*output_tied=*/false),
              GgmlType::Q4_K);
    EXPECT_EQ(choose_tensor_type("output.weight", 256, 2, GgmlType::F32, q4km, 16), GgmlType::Q6_K);
}

TEST(ModelDescription, Qwen3HasPerHeadQkNormsAndItsOwnHeadSize) {
    ScratchDir dir;
    model::ModelShape shape = kShape;
    shape.n_head_dim = 32;  // n_embd / n_head is 16
    const std::string path = (dir / "qwen3.gguf").string();
    model::write_synthetic_model({.shape = shape, .arch = "qwen3", .plan = QuantizePlan::parse("F32")}, path);
    const model::Model m = model::Model::open(path);
    EXPECT_EQ(m.hparams().head_dim, 32);
    EXPECT_EQ(m.tensor("attn_q", 1).ne, (std::vector<uint64_t>{64, 128}));
    EXPECT_EQ(m.tensor("attn_k_norm", 1).ne, (std::vector<uint64_t>{32}));
    EXPECT_EQ(m.bias("attn_q", 0), nullptr);
    const gguf::File qwen3 = gguf::File::open(path);
    gguf::test::expect_mentions(load_error(rewrite(dir, qwen3, {.arch = "qwen3", .drop = "blk.1.attn_q_norm.weight"})),
                                {"blk.1.attn_q_norm.weight", "missing"});
}

}  // namespace
}  // namespace tessera
