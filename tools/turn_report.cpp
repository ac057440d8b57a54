#include "tools/turn_report.hpp"

#include <cstdio>

namespace tessera::cli {

void TurnReport::prompt(size_t tokens, size_t evaluated) {
    tokens_ = tokens;
    evaluated_ = evaluated;
    const auto now = Clock::now();
    prompt_seconds_ = std::chrono::duration<double>(now - start_).count();
    start_ = now;
}

void TurnReport::reply(const Generator::Reply& reply, int64_t n_ctx) const {
    const double gen_seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    if (reply.stop == Generator::Stop::ContextFull)
        std::fprintf(stderr, "note: the reply stopped: the context of %lld tokens is full\n",
                     static_cast<long long>(n_ctx));
    else if (reply.stop == Generator::Stop::Interrupted)
        std::fprintf(stderr, "note: the reply was interrupted\n");
    if (evaluated_ < tokens_)
        std::fprintf(stderr, "prompt: %zu new tokens (%zu reused from the cache)", evaluated_, tokens_ - evaluated_);
    else
        std::fprintf(stderr, "prompt: %zu tokens", tokens_);
    std::fprintf(stderr, " in %.3f s (%.1f tok/s) | generation: %d tokens in %.3f s (%.1f tok/s)\n", prompt_seconds_,
                 prompt_seconds_ > 0 ? double(evaluated_) / prompt_seconds_ : 0.0, reply.tokens, gen_seconds,
                 reply.tokens > 0 && gen_seconds > 0 ? double(reply.tokens) / gen_seconds : 0.0);
}

}  // namespace tessera::cli
