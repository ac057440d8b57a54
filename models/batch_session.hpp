// A model with a KV cache of several sequences, decoded together: one graph
// pass gives one new token to every sequence that has one (matmuls over all
// of them at once, attention per sequence over its own cache), which is how a
// server serves many streams. A sequence's prompt goes in by itself, in
// passes of up to `batch` tokens, between such steps. Each sequence's results
// are those it would have alone: nothing of one reaches another.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "graph/backend.hpp"
#include "models/kv_cache.hpp"
#include "models/model.hpp"
#include "models/session.hpp"

namespace tessera {
class Executor;
}

namespace tessera::model {

class BatchSession {
public:
    // options.n_ctx is each sequence's context.
    BatchSession(const Model& model, SessionOptions options, int64_t n_seq);
    ~BatchSession();

    int64_t n_seq() const { return cache_.n_seq(); }
    int64_t n_ctx() const { return cache_.n_ctx(); }
    int64_t n_past(int64_t seq) const { return n_past_.at(size_t(seq)); }

    // Appends tokens to one sequence; returns the logits of its last token ([n_vocab]).
    std::vector<float> eval(int64_t seq, std::span<const int32_t> tokens);

    // One token for each of several sequences (each sequence at most once),
    // in one pass; returns each one's logits ([n_vocab] each), in order.
    struct Step {
        int64_t seq;
        int32_t token;
    };
    std::vector<std::vector<float>> decode(std::span<const Step> steps);

    // Keeps the first n_past positions of a sequence (Session::truncate):
    // returns what is kept.
    int64_t truncate(int64_t seq, int64_t n_past);

    const Backend& backend() const { return *devices_.backends.front(); }
    // Why the batch runs elsewhere than asked (--backend auto without a
    // usable device, or one too small: "...: running on the CPU") or how it
    // is split between devices, as Session::take_notice says; empty when
    // neither. Empty after the first call.
    std::string take_notice() { return std::exchange(devices_.notice, {}); }

private:
    struct Plan;  // a planned pass (batch_session.cpp)
    // Decoding passes share a plan while the longest sequence fits its window.
    static constexpr int64_t kDecodeWindow = 256;

    void check_seq(int64_t seq) const;

    const Model& model_;
    SessionOptions options_;
    KvCache cache_;
    SessionDevices devices_;
    std::vector<int64_t> n_past_;
    std::unique_ptr<Plan> decode_plan_;
};

}  // namespace tessera::model
