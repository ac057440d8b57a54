// The recipe of docs/model-description.md, followed by a test: architectures
// written outside models/architectures/ with the shared tables and building
// blocks, registered, then written by make-model's writer, loaded and run.
// One copies Llama's block (its logits must equal the built-in llama's on
// the same weights), one runs attention and feed-forward in parallel
// (GPT-J style: its logits must differ from them).
#include <gtest/gtest.h>

#include <cmath>

#include "gguf_test_util.hpp"
#include "models/architectures/standard_decoder.hpp"
#include "models/gguf/writer.hpp"
#include "models/session.hpp"
#include "models/synthetic_model.hpp"
#include "support/error.hpp"

namespace tessera {
namespace {

using namespace model;

using namespace layer_tensors;
constexpr TensorSpec kLayer[] = {
    attn_norm, attn_q(), attn_k(), attn_v(), attn_output(), ffn_norm, ffn_gate(), ffn_up(), ffn_down(),
};

Tensor* llama_block(Layer& layer, Tensor* x) { return pre_norm_block(layer, x, {.rope = cpu::RopeMode::Normal}); }

// x + attention(norm(x)) + ffn(norm'(x)): both branches read the block's input.
Tensor* parallel_block(Layer& layer, Tensor* x) {
    Tensor* attended = layer.self_attention(layer.norm(x, "attn_norm"), x, {.rope = cpu::RopeMode::Normal});
    return layer.swiglu_ffn(layer.norm(x, "ffn_norm"), attended);
}

const Architecture kRecipeLlama{.name = "recipe_llama", .hparams = kStandardHParams, .globals = kStandardGlobals,
                                .layer = kLayer, .block = llama_block};
const Architecture kRecipeParallel{.name = "recipe_parallel", .hparams = kStandardHParams,
                                   .globals = kStandardGlobals, .layer = kLayer, .block = parallel_block};

void register_once() {
    static const bool done = [] {
        register_architecture(kRecipeLlama);
        register_architecture(kRecipeParallel);
        return true;
    }();
    (void)done;
}

// The file of `source` with its architecture renamed (keys follow).
std::string as_architecture(const gguf::test::ScratchDir& dir, const std::string& source, const std::string& arch) {
    const gguf::File f = gguf::File::open(source);
    const std::string from = f.get_string("general.architecture");
    gguf::Writer w;
    for (const gguf::KeyValue& kv : f.metadata()) {
        if (kv.key == "general.architecture") w.add_kv(kv.key, gguf::Value{arch});
        else if (kv.key.starts_with(from + ".")) w.add_kv(arch + kv.key.substr(from.size()), kv.value);
        else w.add_kv(kv.key, kv.value);
    }
    for (const gguf::TensorInfo& t : f.tensors()) w.add_tensor(t.name, t.type.id, t.ne, t.data);
    const std::string path = (dir / (arch + ".gguf")).string();
    w.write(path);
    return path;
}

std::vector<float> logits_of(const std::string& path) {
    const Model m = Model::open(path);
    Session session(m, {.n_ctx = 32, .kv_type = GgmlType::F32});
    const std::vector<int32_t> tokens = {1, 17, 260, 99, 5};
    return session.eval(tokens, /*all_logits=*/true);
}

const ModelShape kShape{.name = "tiny", .n_vocab = 300, .n_embd = 64, .n_layer = 2, .n_head = 4, .n_head_kv = 2,
                        .n_ff = 96, .n_ctx = 32};

TEST(ArchitectureRecipe, AnArchitectureWrittenByTheRecipeLoadsAndRuns) {
    register_once();
    gguf::test::ScratchDir dir;
    const std::string llama = (dir / "llama.gguf").string();
    write_synthetic_model({.shape = kShape, .arch = "llama", .plan = QuantizePlan::parse("F32"), .seed = 3}, llama);
    const std::vector<float> reference = logits_of(llama);

    // make-model's writer takes the registered description too.
    const std::string written = (dir / "written.gguf").string();
    write_synthetic_model({.shape = kShape, .arch = "recipe_llama", .plan = QuantizePlan::parse("F32"), .seed = 3},
                          written);
    EXPECT_EQ(Model::open(written).architecture().name, "recipe_llama");

    const std::vector<float> same_block = logits_of(as_architecture(dir, llama, "recipe_llama"));
    ASSERT_EQ(same_block.size(), reference.size());
    EXPECT_EQ(same_block, reference) << "Llama's block, written by the recipe, computes what llama computes";

    const std::vector<float> parallel = logits_of(as_architecture(dir, llama, "recipe_parallel"));
    ASSERT_EQ(parallel.size(), reference.size());
    double diff = 0;
    for (size_t i = 0; i < parallel.size(); ++i) {
        ASSERT_TRUE(std::isfinite(parallel[i]));
        diff = std::max(diff, double(std::fabs(parallel[i] - reference[i])));
    }
    EXPECT_GT(diff, 1e-3) << "the parallel block must be the one that runs";
}

TEST(ArchitectureRecipe, ANameIsRegisteredOnce) {
    register_once();
    try {
        register_architecture(kRecipeLlama);
        FAIL() << "registering a known name twice succeeded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'recipe_llama' is known already"), std::string::npos) << e.what();
    }
    EXPECT_NE(known_architectures().find("recipe_parallel"), std::string::npos);
}

}  // namespace
}  // namespace tessera
