// A GGUF file resolved against its architecture's description: every
// hyperparameter read (or derived), every tensor found and its shape checked.
// Missing or inconsistent keys and tensors, and tensors the description does
// not use, throw an Error naming them.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/architecture.hpp"
#include "models/gguf/file.hpp"

namespace tessera::model {

// The hyperparameters the graph needs, with names as in the description.
struct HyperParams {
    int64_t n_embd, n_layer, n_head, n_head_kv, head_dim, n_ff, n_ctx_train, n_vocab, n_rot;
    float rms_eps, rope_base, rope_freq_scale;
};

class Model {
public:
    explicit Model(gguf::File file);
    static Model open(const std::string& path) { return Model(gguf::File::open(path)); }

    const gguf::File& file() const { return file_; }
    const Architecture& architecture() const { return *arch_; }
    const HyperParams& hparams() const { return hp_; }
    // Any hyperparameter of the description by name.
    double hparam(std::string_view name) const;
    // The tensor of a global role (layer < 0) or of a layer's role; a tied
    // role returns the tensor it is tied to.
    const gguf::TensorInfo& tensor(std::string_view role, int layer = -1) const;
    // The same, or nullptr when the model has none (an optional tensor).
    const gguf::TensorInfo* find(std::string_view role, int layer = -1) const;
    // The bias of a projection's role; nullptr when the model has none.
    const gguf::TensorInfo* bias(std::string_view role, int layer = -1) const;
    bool output_is_tied() const;
    // Positions a query of the layer sees (Architecture::sliding_window); 0: all.
    int64_t sliding_window(int layer) const { return windows_.empty() ? 0 : windows_[size_t(layer)]; }
    // Where the file is mapped (too large to copy whole: MappedFile), copies
    // tensors onto huge pages, which the CPU's matvecs read faster, as many
    // as there is room for (gguf::File::copy_tensors_to_huge_pages): first
    // those a token reads whole (all but the 3-D stacks of experts), then
    // stacks of experts, of which a token reads a few rows, in file order.
    // Returns the bytes copied (0: none).
    uint64_t copy_tensors_to_huge_pages();
    // Every tensor of the file, each once (the description uses them all).
    const std::vector<const gguf::TensorInfo*>& resolved_tensors() const { return resolved_; }

private:
    using TensorTable = std::map<std::string, const gguf::TensorInfo*, std::less<>>;

    void read_hparams();
    void read_rope_scaling();
    void read_sliding_windows();
    void resolve_tensors();
    // Throws when the file holds a tensor the description did not resolve.
    void check_all_tensors_resolved();
    // Throws naming the tensor when a 1-D F32 tensor (a norm, a bias) holds a NaN or an infinity.
    void check_vectors_finite() const;
    // The GGUF key of a hyperparameter, for messages.
    std::string key_of(std::string_view hparam) const;
    double eval(std::string_view expr, std::string_view what) const;
    const gguf::TensorInfo* resolve(const std::string& name, std::span<const std::string_view> shape,
                                    bool optional) const;
    // Finds a spec's tensor and, for a projection, its bias (key role + ".bias").
    void resolve_into(const TensorSpec& spec, int layer, TensorTable& table);

    gguf::File file_;
    const Architecture* arch_ = nullptr;
    HParamValues values_;
    TensorTable globals_;
    std::vector<TensorTable> layers_;
    std::vector<const gguf::TensorInfo*> resolved_;
    std::vector<int64_t> windows_;  // per layer; empty without windows
    HyperParams hp_{};
};

}  // namespace tessera::model
