#include "models/session.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "graph/cpu_backend.hpp"
#include "graph/executor.hpp"
#include "models/decoder_graph.hpp"
#include "support/error.hpp"

namespace tessera::model {

Session::Session(const Model& model, SessionOptions options)
    : model_(model),
      options_(options),
      cache_(model.hparams(), std::min(options.n_ctx, model.hparams().n_ctx_train), options.kv_type),
      cpu_(std::make_shared<CpuBackend>(options.n_threads)) {
    if (options_.batch < 1) throw Error("the batch size must be at least 1");
}

std::vector<float> Session::eval(std::span<const int32_t> tokens, bool all_logits) {
    if (tokens.empty()) throw Error("no tokens to evaluate");
    if (n_past_ + int64_t(tokens.size()) > cache_.n_ctx())
        throw Error("the context holds " + std::to_string(cache_.n_ctx()) + " tokens: " + std::to_string(n_past_) +
                    " used + " + std::to_string(tokens.size()) + " new do not fit");
    const int64_t n_vocab = model_.hparams().n_vocab;
    for (int32_t t : tokens)
        if (t < 0 || t >= n_vocab)
            throw Error("token id " + std::to_string(t) + " is outside the vocabulary (" + std::to_string(n_vocab) + ")");
    std::vector<float> logits;
    for (size_t first = 0; first < tokens.size(); first += size_t(options_.batch)) {
        const size_t n = std::min(tokens.size() - first, size_t(options_.batch));
        const bool last_batch = first + n == tokens.size();
        auto pass = build_decoder_pass(model_, cache_, int64_t(n), n_past_, all_logits, options_.activations);
        ExecutorOptions exec_options{.backends = {cpu_}, .profile = options_.profile};
        if (!trace_dir_.empty()) exec_options.dump_dir = std::exchange(trace_dir_, {});
        Executor exec(pass->graph, {pass->logits}, exec_options);
        std::memcpy(pass->tokens->data, tokens.data() + first, n * sizeof(int32_t));
        int32_t* pos = static_cast<int32_t*>(pass->positions->data);
        std::iota(pos, pos + n, int32_t(n_past_));
        exec.run();
        n_past_ += int64_t(n);
        if (options_.profile)
            for (const Profile::Entry& e : exec.profile().entries()) profile_.add(e);
        if (all_logits || last_batch) {
            const float* out = static_cast<const float*>(pass->logits->data);
            logits.insert(logits.end(), out, out + pass->logits->nelements());
        }
    }
    return logits;
}

}  // namespace tessera::model
