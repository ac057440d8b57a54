// A model's session and sampler, fed and sampled prompt after prompt. The
// cache keeps what it has seen: a prompt that extends the last one (a chat's
// next turn) costs only the tokens after their common start.
#pragma once

#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "models/sampler.hpp"
#include "models/session.hpp"
#include "models/tokenizer/tokenizer.hpp"

namespace tessera::cli {

class Generator {
public:
    Generator(const model::Model& model, const tokenizer::Tokenizer& tokenizer, const model::SessionOptions& session,
              const SamplerParams& sampling);

    // Makes the context hold exactly `tokens`: keeps the longest start the
    // cache holds already and evaluates the rest (at least the last token,
    // whose logits the reply starts from). Returns how many were evaluated.
    // What the session has to say about where it runs goes to stderr.
    size_t feed(std::span<const int32_t> tokens);

    enum class Stop { Eos, Limit, ContextFull, Interrupted };
    struct Reply {
        std::string text;
        int tokens = 0;
        Stop stop = Stop::Limit;
    };
    struct ReplyOptions {
        int max_tokens = -1;             // < 0: until EOS or a full context
        std::FILE* out = nullptr;        // each whole UTF-8 character as it comes (null: none)
        bool echo_context = false;       // first write the text of the tokens fed so far
        std::function<bool()> interrupted;  // asked before each token (null: never)
    };
    // Samples after what feed() left, until EOS, max_tokens, a full context
    // or interrupted(). Sampled tokens but the last join the context.
    Reply reply(const ReplyOptions& options);

    const model::Session& session() const { return session_; }
    int64_t n_ctx() const { return session_.n_ctx(); }

private:
    const tokenizer::Tokenizer& tokenizer_;
    model::Session session_;
    Sampler sampler_;
    std::vector<int32_t> context_;  // the tokens whose keys and values the cache holds, in order
    std::span<const float> logits_;  // after the last of them (Session::eval_in_place)
};

}  // namespace tessera::cli
