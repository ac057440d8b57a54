// Projection biases in architecture descriptions: required ones (Qwen2's
// q/k/v) must be in the file with the projection's output size; optional
// ones (Llama's) are taken where the file has them.
#include <gtest/gtest.h>

#include "gguf_test_util.hpp"
#include "models/gguf/file.hpp"
#include "models/gguf/writer.hpp"
#include "models/model.hpp"
#include "models/synthetic_model.hpp"
#include "support/error.hpp"

namespace tessera {
namespace {

using gguf::test::ScratchDir;

const model::ModelShape kShape{.name = "tiny", .n_vocab = 300, .n_embd = 64, .n_layer = 2, .n_head = 4,
                               .n_head_kv = 2, .n_ff = 96, .n_ctx = 64};

std::string synthetic(const ScratchDir& dir, const std::string& arch) {
    const std::string path = (dir / (arch + ".gguf")).string();
    model::write_synthetic_model({.shape = kShape, .arch = arch, .plan = QuantizePlan::parse("F32")}, path);
    return path;
}

// A copy of a qwen2 file as architecture `arch` (keys renamed), without tensor
// `drop`, and with tensor `shrink` cut to half its length.
std::string rewrite(const ScratchDir& dir, const gguf::File& qwen2, const std::string& arch,
                    const std::string& drop = "", const std::string& shrink = "") {
    gguf::Writer w;
    for (const gguf::KeyValue& kv : qwen2.metadata()) {
        if (kv.key == "general.architecture") w.add_kv(kv.key, gguf::Value{arch});
        else if (kv.key.starts_with("qwen2.")) w.add_kv(arch + kv.key.substr(5), kv.value);
        else w.add_kv(kv.key, kv.value);
    }
    for (const gguf::TensorInfo& t : qwen2.tensors()) {
        if (t.name == drop) continue;
        if (t.name == shrink) w.add_tensor(t.name, t.type.id, {t.ne[0] / 2}, t.data.first(t.data.size() / 2));
        else w.add_tensor(t.name, t.type.id, t.ne, t.data);
    }
    const std::string path = (dir / (arch + "-rewritten.gguf")).string();
    w.write(path);
    return path;
}

std::string load_error(const std::string& path) {
    try {
        model::Model::open(path);
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "loading succeeded, expected a tessera::Error";
    return "";
}

TEST(ModelDescription, Qwen2HasQkvBiasesAndNeoxRope) {
    ScratchDir dir;
    const model::Model m = model::Model::open(synthetic(dir, "qwen2"));
    EXPECT_EQ(m.architecture().rope_mode, cpu::RopeMode::Neox);
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
    gguf::test::expect_mentions(load_error(rewrite(dir, qwen2, "qwen2", "blk.1.attn_v.bias")),
                                {"blk.1.attn_v.bias", "missing"});
    gguf::test::expect_mentions(load_error(rewrite(dir, qwen2, "qwen2", "", "blk.0.attn_q.bias")),
                                {"blk.0.attn_q.bias", "[32]", "expected [64]"});
}

TEST(ModelDescription, LlamaTakesOptionalBiasesWhereTheFileHasThem) {
    ScratchDir dir;
    const model::Model plain = model::Model::open(synthetic(dir, "llama"));
    EXPECT_EQ(plain.architecture().rope_mode, cpu::RopeMode::Normal);
    EXPECT_EQ(plain.bias("attn_q", 0), nullptr);

    const model::Model biased = model::Model::open(rewrite(dir, gguf::File::open(synthetic(dir, "qwen2")), "llama"));
    EXPECT_EQ(biased.architecture().name, "llama");
    ASSERT_NE(biased.bias("attn_k", 1), nullptr);
    EXPECT_EQ(biased.bias("attn_k", 1)->name, "blk.1.attn_k.bias");
    EXPECT_EQ(biased.bias("ffn_down", 1), nullptr);
}

}  // namespace
}  // namespace tessera
