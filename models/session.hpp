// A model with its KV cache: feeds tokens (a prompt in batches of up to
// `batch` tokens per graph pass, then one token at a time) and returns logits.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "graph/backend.hpp"
#include "graph/choice/backend_choice.hpp"
#include "graph/profile.hpp"
#include "kernels/quant/activation_precision.hpp"
#include "models/kv_cache.hpp"
#include "models/model.hpp"

namespace tessera {
class Executor;
}

namespace tessera::model {

class DeviceSplit;

struct SessionOptions {
    // Capped at the model's training context; a session that would not fit in
    // the machine's memory (models/memory_estimate.hpp) is refused.
    int64_t n_ctx = 2048;
    GgmlType kv_type = GgmlType::F16;   // F16 (llama.cpp's default) or F32
    int64_t batch = 512;                // tokens per graph pass
    int n_threads = 0;                  // 0: OpenMP default
    bool profile = false;               // accumulate per-node times into profile()
    // How matmuls round activations: Q16 is about 2^7 times closer to the
    // exact product than llama.cpp's Q8, and slower (docs/cpu-matmul.md).
    ActivationPrecision activations = ActivationPrecision::Q16;
    BackendKind backend = BackendKind::Cpu;
    int device = 0;  // Vulkan device index (`tessera devices`)
    // Two or more: the model split by layer between these Vulkan devices
    // (models/device_split.hpp); `device` is then unused.
    std::vector<int> devices{};
    std::vector<double> tensor_split{};  // each device's share of the layers; empty: by free memory
    bool fuse = true;  // ExecutorOptions::fuse
};

// What Session and BatchSession share: the context of each of n_seq
// sequences (the one asked for, capped at the training context) once they
// are known to fit in memory, and the check of token ids against the vocabulary.
int64_t context_that_fits(const Model& model, const SessionOptions& options, int64_t n_seq = 1);
void check_token_ids(const Model& model, std::span<const int32_t> tokens);
// Where a session runs, as Session and BatchSession set it up: the backends
// options ask for (the CPU; a device with the CPU behind it; or a backend
// per device of options.devices, the CPU behind them), with several devices
// the split of the model's layers between them, with one device the handles
// that keep every weight's copy there (Backend::preload: copied now rather
// than during the first pass, and kept as long as the session), and what
// the user should hear once: a fall-back to the CPU (--backend auto without
// a usable device, or with one too small for the model, which then leaves
// `backends`) or how the layers are split.
struct SessionDevices {
    std::vector<std::shared_ptr<Backend>> backends;
    std::unique_ptr<DeviceSplit> split;
    std::vector<std::shared_ptr<void>> weight_copies;
    std::string notice;
};
SessionDevices open_session_devices(const Model& model, KvCache& cache, const SessionOptions& options);

class Session {
public:
    Session(const Model& model, SessionOptions options = {});
    ~Session();

    // Appends tokens at the next positions. Returns the logits of the last
    // token ([n_vocab]), or with all_logits of every token ([n_tokens][n_vocab]).
    std::vector<float> eval(std::span<const int32_t> tokens, bool all_logits = false);
    // eval(tokens) without copying a single token's logits out of the pass
    // that computed them (a device writes them to memory the host reads), so
    // that a decoding step costs the host no pass over the vocabulary until
    // it samples. A prompt's logits are copied, as eval's. Valid until the
    // next eval or eval_in_place.
    std::span<const float> eval_in_place(std::span<const int32_t> tokens);

    int64_t n_past() const { return n_past_; }
    int64_t n_ctx() const { return cache_.n_ctx(); }
    void reset() { n_past_ = 0; }  // the cache's contents are overwritten from position 0
    // Keeps the first n_past positions (at most n_past()); the next eval
    // continues after them. Returns the positions kept: n_past, or 0 where a
    // sliding-window cache no longer holds the window before n_past (its
    // rows were reused), so that the caller evaluates those tokens again.
    int64_t truncate(int64_t n_past);
    const Profile& profile() const { return profile_; }
    void reset_profile() { profile_ = {}; }  // forgets the passes profiled so far (warm-ups, say)
    // Dumps every named node of the next pass into dir (see graph/trace.hpp).
    void trace_next_pass(std::string dir) { trace_dir_ = std::move(dir); }
    // The backend nodes run on (the CPU runs what it has no kernel for).
    const Backend& backend() const { return *devices_.backends.front(); }
    // Every backend, the devices first (several with --devices), then the CPU behind them.
    const std::vector<std::shared_ptr<Backend>>& backends() const { return devices_.backends; }
    // Takes what the user should hear once about where the model runs: a
    // fallback to the CPU, ops without a kernel on the chosen backend.
    std::string take_notice() { return std::exchange(devices_.notice, {}); }

private:
    struct Plan;  // a planned pass (session.cpp)
    // Single-token passes on a device share a plan for this many positions.
    static constexpr int64_t kDecodeWindow = 256;

    std::unique_ptr<Plan> make_plan(int64_t n_tokens, int64_t n_kv, bool all_logits);
    void check_room(std::span<const int32_t> tokens) const;  // throws where the tokens cannot be evaluated
    // Whether a pass of n_tokens runs the decode plan (else one planned for it).
    bool reuses_decode_plan(size_t n_tokens, bool all_logits) const;
    Plan& decode_plan();  // the single-token plan of the window holding the next position
    void run(Plan& plan, std::span<const int32_t> tokens);  // one pass of the tokens the plan was made for
    void report_placement(const Executor& exec);

    const Model& model_;
    SessionOptions options_;
    KvCache cache_;
    SessionDevices devices_;
    bool placement_reported_ = false;
    std::unique_ptr<Plan> decode_plan_;
    std::vector<float> held_logits_;  // eval_in_place's copy of a prompt's logits
    int64_t n_past_ = 0;
    Profile profile_;
    std::string trace_dir_;
};

}  // namespace tessera::model
