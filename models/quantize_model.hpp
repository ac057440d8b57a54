// Requantizing a GGUF model to another weight type (what `tessera quantize` does).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "kernels/quant/ggml_type.hpp"

namespace tessera {

namespace gguf { class File; }

struct QuantizePlan {
    GgmlType target = GgmlType::Q8_0;
    // llama.cpp's mixes Q4_K_M / Q5_K_M: target Q4_K / Q5_K, with attn_v and
    // ffn_down at this type in the layers its use_more_bits rule picks.
    std::optional<GgmlType> more_bits;
    // pure: every 2-D weight gets `target`. Otherwise, like llama-quantize's
    // defaults, output.weight is kept at Q6_K precision when the target is
    // coarser (and Q6_K is in the build).
    bool pure = false;
    int threads = 0;  // 0: OpenMP default

    // A type name ("Q4_0", "F16", ...) or a mix ("Q4_K_M", "Q5_K_M"), in any case; throws
    // an Error naming the choices for anything else, or a type the build left out.
    static QuantizePlan parse(const std::string& name);
    std::string name() const;
    // llama.cpp's general.file_type for the plan, if it has one.
    std::optional<uint32_t> llama_file_type() const;
};

struct QuantizeReport {
    uint64_t tensors_quantized = 0;
    uint64_t tensors_copied = 0;
    uint64_t tensors_fallback = 0;  // rows not a multiple of the target block
    uint64_t bytes_in = 0;
    uint64_t bytes_out = 0;
};

// The type a weight tensor gets under `plan`; rows whose length is not a
// multiple of the chosen type's block fall back (fitting_type).
// n_layer: the model's block count (for the mixes' per-layer rule).
// output_tied: the file has no output.weight, so token_embd.weight also
// projects the logits and gets the output's type (as llama.cpp quantizes it).
GgmlType choose_tensor_type(const std::string& name, uint64_t row_elems, size_t n_dims, GgmlType source,
                            const QuantizePlan& plan, int64_t n_layer, bool output_tied = false);

// What choose_model_tensor_type needs to know of the model beside the tensor.
struct QuantizeFacts {
    int64_t n_layer = 0;
    int64_t n_expert = 0;  // 0: not a mixture of experts
    bool output_tied = false;
};

// The type a weight gets under `plan` in a model, as llama-quantize types it:
// choose_tensor_type's answer, an expert tensor (`ffn_*_exps`) typed as its
// dense counterpart, and for mixtures of experts what llama-quantize adds:
// the router (`ffn_gate_inp`) keeps its source type; in models of 8 experts
// (Mixtral) attn_k and attn_v get Q8_0 and Q4_K_M's attn_output Q5_K
// (fitting_type where their rows do not fit those blocks). `fallback`:
// whether the rows did not fit the type asked for.
GgmlType choose_model_tensor_type(const std::string& name, uint64_t row_elems, size_t n_dims, GgmlType source,
                                  const QuantizePlan& plan, const QuantizeFacts& facts, bool& fallback);

// `wanted` if its blocks fit rows of row_elems values; else what
// llama-quantize puts in place of a k-quant (Q4_K -> Q5_0, Q5_K -> Q5_1,
// Q6_K -> Q8_0, Q2_K and Q3_K -> IQ4_NL) where that is enabled and fits;
// else the cheapest enabled type whose block fits and whose bits per weight
// are at least wanted's (ties: the lower type id, so F16 before BF16); F32 if none fits.
GgmlType fitting_type(GgmlType wanted, uint64_t row_elems);

// Whether `chosen`, choose_tensor_type's answer for a tensor, is a fallback
// from what the plan asks for (rows that do not fit its block): neither the
// source type of a norm or vector, nor the plan's type, its more-bits type or
// the Q6_K of the output projection.
bool is_fallback(const std::string& name, size_t n_dims, GgmlType chosen, const QuantizePlan& plan,
                 bool output_tied = false);

// The name of a llama.cpp general.file_type value ("Q4_0", "Q4_K_M", ...), or "ftype N".
std::string file_type_name(uint32_t file_type);

// Writes `out_path` (support/output_file.hpp; never over the input file);
// `log` receives one line per tensor (may be null).
QuantizeReport quantize_model(const gguf::File& in, const std::string& out_path, const QuantizePlan& plan,
                              const std::function<void(const std::string&)>& log);

}  // namespace tessera
