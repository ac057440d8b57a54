#include "models/batch_session.hpp"

#include <algorithm>
#include <cstring>

#include "graph/executor.hpp"
#include "models/decoder_graph.hpp"
#include "models/device_split.hpp"
#include "support/error.hpp"

namespace tessera::model {

struct BatchSession::Plan {
    std::unique_ptr<DecoderPass> pass;
    std::unique_ptr<Executor> exec;
    int64_t n_kv = 0;
};

BatchSession::BatchSession(const Model& model, SessionOptions options, int64_t n_seq)
    : model_(model),
      options_(options),
      cache_(model, context_that_fits(model, options, n_seq), options.kv_type, options.batch, n_seq),
      devices_(open_session_devices(model_, cache_, options_)),
      n_past_(size_t(n_seq), 0) {}

BatchSession::~BatchSession() = default;

void BatchSession::check_seq(int64_t seq) const {
    if (seq < 0 || seq >= n_seq())
        throw Error("sequence " + std::to_string(seq) + " of a batch of " + std::to_string(n_seq()));
}

std::vector<float> BatchSession::eval(int64_t seq, std::span<const int32_t> tokens) {
    check_seq(seq);
    if (tokens.empty()) throw Error("no tokens to evaluate");
    int64_t& n_past = n_past_[size_t(seq)];
    if (n_past + int64_t(tokens.size()) > cache_.n_ctx())
        throw Error("the context holds " + std::to_string(cache_.n_ctx()) + " tokens: " + std::to_string(n_past) +
                    " used + " + std::to_string(tokens.size()) + " new do not fit");
    check_token_ids(model_, tokens);
    std::vector<float> logits;
    for (size_t first = 0; first < tokens.size(); first += size_t(options_.batch)) {
        const size_t n = std::min(tokens.size() - first, size_t(options_.batch));
        auto pass = build_decoder_pass(model_, cache_, int64_t(n), n_past, false, options_.activations, 0,
                                       {.first = seq, .count = 1});
        ExecutorOptions exec_options{.backends = devices_.backends, .profile = false, .fuse = options_.fuse};
        if (devices_.split) exec_options.place = devices_.split->placement(*pass);
        Executor exec(pass->graph, {pass->logits}, exec_options);
        std::memcpy(pass->tokens->data, tokens.data() + first, n * sizeof(int32_t));
        pass->fill_positions(int32_t(n_past));
        exec.run();
        n_past += int64_t(n);
        if (first + n == tokens.size()) {
            const float* out = static_cast<const float*>(pass->logits->data);
            logits.assign(out, out + pass->logits->nelements());
        }
    }
    return logits;
}

std::vector<std::vector<float>> BatchSession::decode(std::span<const Step> steps) {
    if (steps.empty()) throw Error("no tokens to decode");
    const int64_t n = n_seq();
    // Every sequence has a row in the pass; those without a token this step
    // are idle (position -1: they store nothing and see nothing).
    std::vector<int32_t> tokens(size_t(n), 0), positions(size_t(n), -1);
    int64_t longest = 0;
    for (const Step& s : steps) {
        check_seq(s.seq);
        check_token_ids(model_, {&s.token, 1});
        if (positions[size_t(s.seq)] >= 0) throw Error("sequence " + std::to_string(s.seq) + " has two tokens in one step");
        const int64_t pos = n_past_[size_t(s.seq)];
        if (pos >= cache_.n_ctx())
            throw Error("the context of sequence " + std::to_string(s.seq) + " is full (" +
                        std::to_string(cache_.n_ctx()) + " tokens)");
        tokens[size_t(s.seq)] = s.token;
        positions[size_t(s.seq)] = int32_t(pos);
        longest = std::max(longest, pos + 1);
    }
    const int64_t window = std::min(cache_.n_ctx(), (longest + kDecodeWindow - 1) / kDecodeWindow * kDecodeWindow);
    if (!decode_plan_ || decode_plan_->n_kv < longest || decode_plan_->n_kv > window) {
        decode_plan_ = std::make_unique<Plan>();
        decode_plan_->n_kv = window;
        decode_plan_->pass = build_decoder_pass(model_, cache_, n, 0, true, options_.activations, window,
                                                {.first = 0, .count = n});
        ExecutorOptions exec_options{.backends = devices_.backends, .profile = false, .fuse = options_.fuse};
        if (devices_.split) exec_options.place = devices_.split->placement(*decode_plan_->pass);
        decode_plan_->exec = std::make_unique<Executor>(
            decode_plan_->pass->graph, std::vector<Tensor*>{decode_plan_->pass->logits}, exec_options);
    }
    DecoderPass& pass = *decode_plan_->pass;
    std::memcpy(pass.tokens->data, tokens.data(), tokens.size() * sizeof(int32_t));
    pass.set_positions(positions);
    decode_plan_->exec->run();
    const int64_t n_vocab = model_.hparams().n_vocab;
    const float* out = static_cast<const float*>(pass.logits->data);
    std::vector<std::vector<float>> logits;
    for (const Step& s : steps) {
        ++n_past_[size_t(s.seq)];
        const float* row = out + s.seq * n_vocab;
        logits.emplace_back(row, row + n_vocab);
    }
    return logits;
}

int64_t BatchSession::truncate(int64_t seq, int64_t n_past) {
    check_seq(seq);
    int64_t& current = n_past_[size_t(seq)];
    if (n_past < 0 || n_past > current)
        throw Error("cannot keep " + std::to_string(n_past) + " positions of a context holding " +
                    std::to_string(current));
    current = cache_.kept_stepping_back(current, n_past);
    return current;
}

}  // namespace tessera::model
