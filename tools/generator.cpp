#include "tools/generator.hpp"

#include <algorithm>

#include "models/tokenizer/stream_decoder.hpp"
#include "support/error.hpp"
#include "tools/model_input.hpp"

namespace tessera::cli {

Generator::Generator(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                     const model::SessionOptions& session, const SamplerParams& sampling)
    : tokenizer_(tokenizer), session_(model, session), sampler_(sampling) {}

size_t Generator::feed(std::span<const int32_t> tokens) {
    if (tokens.empty()) throw Error("the prompt is empty");
    const auto [differ, _] = std::ranges::mismatch(context_, tokens);
    const size_t kept = size_t(
        session_.truncate(int64_t(std::min(size_t(differ - context_.begin()), tokens.size() - 1))));
    context_.resize(kept);
    const std::span<const int32_t> rest = tokens.subspan(kept);
    logits_ = session_.eval_in_place(rest);
    print_notice(session_);
    for (const int32_t t : rest) sampler_.accept(t);
    context_.insert(context_.end(), rest.begin(), rest.end());
    return rest.size();
}

Generator::Reply Generator::reply(const ReplyOptions& o) {
    if (logits_.empty()) throw Error("nothing to reply to: feed a prompt first");
    const auto write = [&](const std::string& text) {
        if (!o.out || text.empty()) return;
        std::fwrite(text.data(), 1, text.size(), o.out);
        std::fflush(o.out);
    };
    // Primed with the context, so that the first piece keeps (or drops) its leading space as in the whole text.
    tokenizer::StreamDecoder decoder(tokenizer_);
    for (const int32_t t : context_) {
        const std::string text = decoder.push(t);
        if (o.echo_context) write(text);
    }
    Reply r;
    const int32_t eos = tokenizer_.vocab().data().eos_id;
    while (o.max_tokens != 0) {
        if (o.interrupted && o.interrupted()) {
            r.stop = Stop::Interrupted;
            break;
        }
        const int32_t next = sampler_.sample(logits_);
        sampler_.accept(next);
        if (next == eos) {
            r.stop = Stop::Eos;
            break;
        }
        const std::string piece = decoder.push(next);
        r.text += piece;
        write(piece);
        if (++r.tokens == o.max_tokens) {
            r.stop = Stop::Limit;
            break;
        }
        if (session_.n_past() >= session_.n_ctx()) {
            r.stop = Stop::ContextFull;
            break;
        }
        logits_ = session_.eval_in_place(std::span(&next, 1));
        context_.push_back(next);
    }
    const std::string rest = decoder.finish();
    r.text += rest;
    write(rest);
    return r;
}

}  // namespace tessera::cli
