// The description of a model architecture: which GGUF keys give its
// hyperparameters, which tensors it has (globally and per layer) and their
// shapes in terms of those hyperparameters, and its transformer block, written
// with the building blocks of models/layer.hpp. One file per architecture
// lives in models/architectures/; models/model.hpp resolves a description
// against a file, models/decoder_graph.cpp builds a pass from it
// (docs/model-description.md).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "graph/tensor.hpp"

namespace tessera::model {

class Layer;
class Model;

// How a hyperparameter is read.
enum class Source {
    Uint,         // an integer key
    Float,        // a float key
    ArrayLength,  // the length of an array key (e.g. the token list)
};

struct HParam {
    std::string_view name;  // what shapes and the graph call it: "n_embd"
    std::string_view key;   // GGUF key; "{arch}" stands for the architecture name
    Source source = Source::Uint;
    // When the key is absent: a constant, or an expression over hyperparameters
    // declared earlier ("n_embd/n_head"); neither means the key is required.
    std::optional<double> fallback = std::nullopt;
    std::string_view fallback_expr = {};

    // The key in a file of architecture `arch`.
    std::string key_for(std::string_view arch) const;
};

// Whether a projection (a weight [n_in, n_out] that multiplies activations)
// adds a bias to its product: an F32 vector [n_out] named like the weight
// with ".bias" for ".weight" ("blk.{i}.attn_q.bias").
enum class Bias { None, Optional, Required };

// A tensor, "{i}" in its name standing for the layer index. Shape entries are
// hyperparameter expressions ("n_head*head_dim"); an empty entry ends the shape.
struct TensorSpec {
    std::string_view role;  // what the graph calls it: "attn_q"
    std::string_view name;  // GGUF name: "blk.{i}.attn_q.weight"
    std::array<std::string_view, 3> shape;
    bool optional = false;
    std::string_view tied_to = {};  // when absent, the global tensor of this role stands in
    Bias bias = Bias::None;
    // A hyperparameter expression: the tensor belongs to the model only
    // where it is nonzero (`when`) or zero (`unless`), e.g. the experts of a
    // Llama file with llama.expert_count and the dense feed-forward of one
    // without. Empty: always.
    std::string_view when = {}, unless = {};

    // The tensor's name in a layer (any layer for a global tensor).
    std::string name_in(int layer) const;
    // Its bias's name in a layer; the weight's name ends in ".weight" (Model checks).
    std::string bias_name_in(int layer) const;
};

struct Architecture {
    std::string_view name;  // general.architecture
    std::span<const HParam> hparams;
    std::span<const TensorSpec> globals;
    std::span<const TensorSpec> layer;
    // One layer of the residual stream: x in, x out. The driver calls it for
    // every layer between the embedding and the output norm.
    Tensor* (*block)(Layer& layer, Tensor* x) = nullptr;
    // Optional, the identity where null: what follows the embedding lookup
    // (Gemma scales it) and what follows the output projection (Gemma 2
    // soft-caps the logits); `globals` is the layer of index -1.
    Tensor* (*embed)(Layer& globals, Tensor* x) = nullptr;
    Tensor* (*logits)(Layer& globals, Tensor* logits) = nullptr;
    // Optional, no window where null: how many positions (itself included) a
    // query of layer `layer` sees, 0 for all. Read once when the model is
    // opened; an Error for inconsistent keys. Layer::self_attention applies
    // it and the KV cache keeps only that many rows (and a batch) for it.
    int64_t (*sliding_window)(const Model& model, int layer) = nullptr;
};

// Values of hyperparameters by name.
using HParamValues = std::map<std::string, double, std::less<>>;

// A hyperparameter expression over `values` and numbers: a sum of products
// ("a", "a*b", "a/b*c", "n_rot/2", "a*b+c*2"; products left to right). Throws an Error "<context> uses '<term>', which
// is neither a number nor a hyperparameter declared before it" for a term
// that is neither.
double eval_hparam_expr(std::string_view expr, const HParamValues& values, std::string_view context);

// The architectures tessera knows (models/architectures/ and registered
// ones); nullptr when `name` is not one of them.
const Architecture* find_architecture(std::string_view name);
// Makes an architecture defined outside models/architectures/ (a program's
// own, docs/model-description.md) known by its name; `arch` must outlive its
// use. Throws an Error when the name is taken.
void register_architecture(const Architecture& arch);
// Their names, for error messages.
std::string known_architectures();

}  // namespace tessera::model
