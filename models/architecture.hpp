// The declarative description of a model architecture: which GGUF keys give
// its hyperparameters, which tensors it has (globally and per layer) and
// their shapes in terms of those hyperparameters, and the choices its
// transformer block makes. One table per architecture lives in
// models/architectures/; models/model.hpp resolves a table against a file.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string_view>

#include "kernels/cpu/rope.hpp"

namespace tessera::model {

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
};

// A tensor, "{i}" in its name standing for the layer index. Shape entries are
// hyperparameter expressions ("n_head*head_dim"); an empty entry ends the shape.
struct TensorSpec {
    std::string_view role;  // what the graph calls it: "attn_q"
    std::string_view name;  // GGUF name: "blk.{i}.attn_q.weight"
    std::array<std::string_view, 2> shape;
    bool optional = false;
    std::string_view tied_to = {};  // when absent, the global tensor of this role stands in
};

struct Architecture {
    std::string_view name;  // general.architecture
    std::span<const HParam> hparams;
    std::span<const TensorSpec> globals;
    std::span<const TensorSpec> layer;
    cpu::RopeMode rope_mode;
};

// The architectures tessera knows; nullptr when `name` is not one of them.
const Architecture* find_architecture(std::string_view name);
// Their names, for error messages.
std::string_view known_architectures();

}  // namespace tessera::model
