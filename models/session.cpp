#include "models/session.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

#include "graph/executor.hpp"
#include "graph/op_def.hpp"
#include "graph/transfer.hpp"
#include "models/decoder_graph.hpp"
#include "models/device_split.hpp"
#include "models/memory_estimate.hpp"
#include "support/error.hpp"

namespace tessera::model {

// A planned pass: its graph and the executor that runs it.
struct Session::Plan {
    std::unique_ptr<DecoderPass> pass;
    std::unique_ptr<Executor> exec;
    int64_t n_kv = 0;  // cache positions attention reads (masked by position beyond n_past)

    // What its last run left in the logits tensor.
    std::span<const float> logits() const {
        return {static_cast<const float*>(pass->logits->data), size_t(pass->logits->nelements())};
    }
};

int64_t context_that_fits(const Model& model, const SessionOptions& options, int64_t n_seq) {
    if (n_seq < 1) throw Error("a session needs at least one sequence");
    const int64_t n_ctx = std::min(options.n_ctx, model.hparams().n_ctx_train);
    MemoryEstimate e = estimate_memory(model, n_ctx, options.kv_type, std::max(options.batch, n_seq));
    e.kv_cache *= double(n_seq);
    require_memory(e, n_ctx);
    return n_ctx;
}

void check_token_ids(const Model& model, std::span<const int32_t> tokens) {
    const int64_t n_vocab = model.hparams().n_vocab;
    for (int32_t t : tokens)
        if (t < 0 || t >= n_vocab)
            throw Error("token id " + std::to_string(t) + " is outside the vocabulary (" + std::to_string(n_vocab) + ")");
}

namespace {

BackendSet session_backends(const SessionOptions& options) {
    if (options.devices.size() > 1) return make_backends(options.backend, options.devices, options.n_threads);
    if (!options.tensor_split.empty())
        throw Error("--tensor-split shares the layers between two or more devices (--devices), not one");
    return make_backends(options.backend, options.devices.empty() ? options.device : options.devices.front(),
                         options.n_threads);
}

std::unique_ptr<DeviceSplit> split_between_devices(const Model& model, KvCache& cache, const SessionOptions& options,
                                                   const std::vector<std::shared_ptr<Backend>>& backends) {
    if (options.devices.size() < 2) return nullptr;
    auto pass = build_decoder_pass(model, cache, 1, 0, false, options.activations);
    const double activations = estimate_memory(model, cache.n_ctx(), options.kv_type, options.batch).activations;
    auto split = std::make_unique<DeviceSplit>(*pass, backends, options.devices, options.tensor_split, activations);
    split->preload(*pass);
    return split;
}

// With one device first in `backends`, the handles of every weight's copy
// there; with --backend auto, a device too small for the model means the
// CPU: the device leaves `backends` and `notice` says so.
std::vector<std::shared_ptr<void>> preload_weights(const Model& model, KvCache& cache, const SessionOptions& options,
                                                   std::vector<std::shared_ptr<Backend>>& backends, std::string& notice) {
    std::vector<std::shared_ptr<void>> copies;
    if (backends.front()->host_addressable()) return copies;
    auto pass = build_decoder_pass(model, cache, 1, 0, false, options.activations);
    try {
        for (const Tensor& t : pass->graph.tensors())
            if (t.leaf == LeafKind::Weight) copies.push_back(backends.front()->preload(t));
    } catch (const BackendOutOfMemory& e) {
        if (options.backend != BackendKind::Auto) throw;
        copies.clear();  // the weights copied so far leave the device
        notice = std::string(e.what()) + ": running on the CPU";
        backends.erase(backends.begin());
    }
    return copies;
}

}  // namespace

SessionDevices open_session_devices(const Model& model, KvCache& cache, const SessionOptions& options) {
    BackendSet set = session_backends(options);
    SessionDevices d{.backends = std::move(set.backends), .notice = std::move(set.notice)};
    d.split = split_between_devices(model, cache, options, d.backends);
    if (d.split) d.notice += (d.notice.empty() ? "" : "\n") + d.split->describe();
    else d.weight_copies = preload_weights(model, cache, options, d.backends, d.notice);
    return d;
}

Session::Session(const Model& model, SessionOptions options)
    : model_(model),
      options_(options),
      cache_(model, context_that_fits(model, options), options.kv_type, options.batch),
      devices_(open_session_devices(model_, cache_, options_)) {}

Session::~Session() = default;

// Says once which ops of the first pass had no kernel on the preferred backend.
void Session::report_placement(const Executor& exec) {
    if (placement_reported_ || devices_.backends.size() < 2) return;
    placement_reported_ = true;
    std::map<std::string, int> fallback;
    const Backend& host = *devices_.backends.back();
    for (const Tensor* t : exec.schedule())
        if (!t->is_view() && devices_.backends[size_t(t->backend)].get() == &host && t->op != &ops::kTransfer)
            ++fallback[std::string(t->op->name)];
    if (fallback.empty()) return;
    std::string ops;
    for (const auto& [op, n] : fallback) ops += (ops.empty() ? "" : ", ") + op + " (" + std::to_string(n) + ")";
    devices_.notice += (devices_.notice.empty() ? "" : "\n") + std::string(devices_.backends.front()->name()) + " has no kernel for " + ops +
               ": these nodes run on the " + std::string(host.name());
}

std::unique_ptr<Session::Plan> Session::make_plan(int64_t n_tokens, int64_t n_kv, bool all_logits) {
    auto plan = std::make_unique<Plan>();
    plan->n_kv = n_kv;
    plan->pass = build_decoder_pass(model_, cache_, n_tokens, n_past_, all_logits, options_.activations, n_kv);
    ExecutorOptions exec_options{.backends = devices_.backends, .profile = options_.profile, .fuse = options_.fuse};
    if (devices_.split) exec_options.place = devices_.split->placement(*plan->pass);
    if (!trace_dir_.empty()) exec_options.dump_dir = std::exchange(trace_dir_, {});
    plan->exec = std::make_unique<Executor>(plan->pass->graph, std::vector<Tensor*>{plan->pass->logits}, exec_options);
    report_placement(*plan->exec);
    return plan;
}

int64_t Session::truncate(int64_t n_past) {
    if (n_past < 0 || n_past > n_past_)
        throw Error("cannot keep " + std::to_string(n_past) + " positions of a context holding " +
                    std::to_string(n_past_));
    n_past_ = cache_.kept_stepping_back(n_past_, n_past);
    return n_past_;
}

void Session::check_room(std::span<const int32_t> tokens) const {
    if (tokens.empty()) throw Error("no tokens to evaluate");
    if (n_past_ + int64_t(tokens.size()) > cache_.n_ctx())
        throw Error("the context holds " + std::to_string(cache_.n_ctx()) + " tokens: " + std::to_string(n_past_) +
                    " used + " + std::to_string(tokens.size()) + " new do not fit");
    check_token_ids(model_, tokens);
}

// Single-token passes reuse one plan (on a device, its recorded command
// buffer too) while the cached positions fit its window: building and
// planning a pass cost a CPU token a measurable share
// (docs/benchmarks.md#the-zen-4-vm-one-plan-for-all-decode-steps-2026-11-29-f5465b7).
// A traced or profiled pass is planned afresh.
bool Session::reuses_decode_plan(size_t n_tokens, bool all_logits) const {
    return n_tokens == 1 && !all_logits && trace_dir_.empty() && !options_.profile;
}

Session::Plan& Session::decode_plan() {
    const int64_t window = std::min(cache_.n_ctx(), (n_past_ + kDecodeWindow) / kDecodeWindow * kDecodeWindow);
    if (!decode_plan_ || decode_plan_->n_kv != window) decode_plan_ = make_plan(1, window, false);
    return *decode_plan_;
}

void Session::run(Plan& plan, std::span<const int32_t> tokens) {
    DecoderPass& pass = *plan.pass;
    std::memcpy(pass.tokens->data, tokens.data(), tokens.size() * sizeof(int32_t));
    pass.fill_positions(int32_t(n_past_));
    plan.exec->run();
    n_past_ += int64_t(tokens.size());
    if (options_.profile) {
        for (const Profile::Entry& e : plan.exec->profile().entries()) profile_.add(e);
        for (const Profile::Step& step : plan.exec->profile().steps()) profile_.add_step(step);
    }
}

std::vector<float> Session::eval(std::span<const int32_t> tokens, bool all_logits) {
    check_room(tokens);
    std::vector<float> logits;
    for (size_t first = 0; first < tokens.size(); first += size_t(options_.batch)) {
        const size_t n = std::min(tokens.size() - first, size_t(options_.batch));
        const bool last_batch = first + n == tokens.size();
        std::unique_ptr<Plan> fresh;
        Plan* plan = nullptr;
        if (reuses_decode_plan(n, all_logits)) {
            plan = &decode_plan();
        } else {
            const auto t0 = std::chrono::steady_clock::now();
            fresh = make_plan(int64_t(n), n_past_ + int64_t(n), all_logits);
            if (options_.profile)
                profile_.add_step({.name = "plan", .runs = 1, .seconds = seconds_since(t0)});
            plan = fresh.get();
        }
        run(*plan, tokens.subspan(first, n));
        if (all_logits || last_batch) {
            const std::span<const float> out = plan->logits();
            logits.insert(logits.end(), out.begin(), out.end());
        }
        if (fresh && options_.profile) {
            const auto t0 = std::chrono::steady_clock::now();
            fresh.reset();
            profile_.add_step({.name = "plan freed", .runs = 1, .seconds = seconds_since(t0)});
        }
    }
    return logits;
}

std::span<const float> Session::eval_in_place(std::span<const int32_t> tokens) {
    if (!reuses_decode_plan(tokens.size(), false)) {
        held_logits_ = eval(tokens);
        return held_logits_;
    }
    check_room(tokens);
    Plan& plan = decode_plan();
    run(plan, tokens);
    return plan.logits();
}

}  // namespace tessera::model
