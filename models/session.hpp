// A model with its KV cache: feeds tokens (a prompt in batches of up to
// `batch` tokens per graph pass, then one token at a time) and returns logits.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "graph/backend.hpp"
#include "graph/profile.hpp"
#include "kernels/quant/activation_precision.hpp"
#include "models/kv_cache.hpp"
#include "models/model.hpp"

namespace tessera::model {

struct SessionOptions {
    int64_t n_ctx = 2048;               // capped at the model's training context
    GgmlType kv_type = GgmlType::F16;   // F16 (llama.cpp's default) or F32
    int64_t batch = 512;                // tokens per graph pass
    int n_threads = 0;                  // 0: OpenMP default
    bool profile = false;               // accumulate per-node times into profile()
    // How matmuls round activations: Q16 is about 2^7 times closer to the
    // exact product than llama.cpp's Q8, and slower (docs/cpu-matmul.md).
    ActivationPrecision activations = ActivationPrecision::Q16;
};

class Session {
public:
    Session(const Model& model, SessionOptions options = {});

    // Appends tokens at the next positions. Returns the logits of the last
    // token ([n_vocab]), or with all_logits of every token ([n_tokens][n_vocab]).
    std::vector<float> eval(std::span<const int32_t> tokens, bool all_logits = false);

    int64_t n_past() const { return n_past_; }
    int64_t n_ctx() const { return cache_.n_ctx(); }
    void reset() { n_past_ = 0; }
    const Profile& profile() const { return profile_; }
    // Dumps every named node of the next pass into dir (see graph/trace.hpp).
    void trace_next_pass(std::string dir) { trace_dir_ = std::move(dir); }

private:
    const Model& model_;
    SessionOptions options_;
    KvCache cache_;
    std::shared_ptr<Backend> cpu_;
    int64_t n_past_ = 0;
    Profile profile_;
    std::string trace_dir_;
};

}  // namespace tessera::model
