// `tessera run -m MODEL (-p TEXT | -f FILE | --tokens IDS) [-n N] [sampling] [--chat] [-i] [--no-think]`:
// generates text, streaming it to stdout (and nothing else); load time and
// prompt / generation speed go to stderr. An empty prompt generates from BOS.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "models/chat_template.hpp"
#include "models/sampler.hpp"
#include "models/tokenizer/stream_decoder.hpp"
#include "support/error.hpp"
#include "tools/commands.hpp"
#include "tools/model_input.hpp"
#include "tools/pipeline_report.hpp"

namespace tessera::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct RunOptions {
    ModelInput in;
    int n_predict = 256;
    SamplerParams sampling;
    bool chat = false, interactive = false, profile = false, no_think = false;
    std::string chat_template;
};

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

class Generator {
public:
    Generator(const RunOptions& o, const model::Model& m, const tokenizer::Tokenizer& tok)
        : o_(o), tok_(tok), session_(m, [&] {
              model::SessionOptions s = session_options(o.in);
              s.profile = o.profile;
              return s;
          }()) {}

    // Feeds the prompt from an empty context and streams up to n_predict
    // tokens (stopping at EOS). Returns the generated text.
    std::string generate(const std::vector<int32_t>& prompt) {
        if (prompt.empty()) throw Error("the prompt is empty");
        if (int64_t(prompt.size()) + o_.n_predict > session_.n_ctx())
            throw Error("the prompt (" + std::to_string(prompt.size()) + " tokens) plus " +
                        std::to_string(o_.n_predict) + " generated tokens exceed the context of " +
                        std::to_string(session_.n_ctx()) + " tokens (raise --ctx or lower -n)");
        session_.reset();
        Sampler sampler(o_.sampling);
        for (int32_t t : prompt) sampler.accept(t);
        // Primed with the prompt, so the first generated piece keeps its leading space.
        tokenizer::StreamDecoder decoder(tok_);
        for (int32_t t : prompt) decoder.push(t);
        auto t0 = Clock::now();
        std::vector<float> logits = session_.eval(prompt);
        print_notice(session_);
        const double prompt_s = since(t0);
        std::string text;
        int generated = 0;
        t0 = Clock::now();
        for (; generated < o_.n_predict; ++generated) {
            const int32_t next = sampler.sample(logits);
            sampler.accept(next);
            if (next == tok_.vocab().data().eos_id) break;
            const std::string piece = decoder.push(next);
            text += piece;
            std::fwrite(piece.data(), 1, piece.size(), stdout);
            std::fflush(stdout);
            if (generated + 1 < o_.n_predict) logits = session_.eval(std::vector<int32_t>{next});
        }
        const std::string rest = decoder.finish();
        text += rest;
        std::fwrite(rest.data(), 1, rest.size(), stdout);
        std::fflush(stdout);
        const double gen_s = since(t0);
        std::fprintf(stderr, "\nprompt: %zu tokens in %.3f s (%.1f tok/s) | generation: %d tokens in %.3f s (%.1f tok/s)\n",
                     prompt.size(), prompt_s, double(prompt.size()) / prompt_s, generated, gen_s,
                     generated > 0 ? double(generated) / gen_s : 0.0);
        return text;
    }

    const model::Session& session() const { return session_; }

private:
    const RunOptions& o_;
    const tokenizer::Tokenizer& tok_;
    model::Session session_;
};

// The chat-formatted conversation as tokens; the template's own BOS text
// replaces the one the tokenizer would add.
std::vector<int32_t> chat_tokens(const ChatTemplate& tmpl, const std::vector<ChatMessage>& messages,
                                 const ChatOptions& options, const tokenizer::Tokenizer& tok) {
    const std::string text = tmpl.apply(messages, options);
    const int32_t bos = tok.vocab().data().bos_id;
    const bool has_bos = bos >= 0 && text.starts_with(tok.vocab().text(bos));
    return tok.encode(text, {.add_special = !has_bos, .parse_special = true});
}

void run_generate(const RunOptions& o) {
    const auto m = open_model(o.in);
    const auto tok = tokenizer::Tokenizer::from_gguf(m->file());
    Generator gen(o, *m, *tok);
    if (!o.chat && !o.interactive) {
        // An empty text is BOS alone where the model adds one (llama.cpp's behaviour), else nothing.
        const std::vector<int32_t> prompt = prompt_tokens(o.in, *tok);
        if (prompt.empty())
            throw Error("the prompt is empty and " + m->file().name() +
                        " adds no BOS token to generate from; give a prompt (-p TEXT, -f FILE or --tokens IDS)");
        gen.generate(prompt);
    } else {
        const ChatTemplate tmpl = ChatTemplate::for_model(m->file(), o.chat_template);
        if (!tmpl.warning().empty()) std::fprintf(stderr, "warning: %s\n", tmpl.warning().c_str());
        if (o.no_think && !tmpl.has_thinking_switch())
            throw Error("--no-think: the chat template " + std::string(tmpl.name()) +
                        " has no thinking switch (Qwen3's template, qwen3, has one)");
        const ChatOptions options{.enable_thinking = !o.no_think};
        std::vector<ChatMessage> messages;
        std::string first = o.in.prompt_file.empty() ? o.in.prompt : read_exact(o.in.prompt_file);
        // The whole conversation is re-read each turn (simple; fine for short chats).
        for (bool more = !first.empty() || o.interactive; more;) {
            if (first.empty()) {
                std::fprintf(stderr, "\n> ");
                if (!std::getline(std::cin, first)) break;
            }
            messages.push_back({"user", std::exchange(first, {})});
            messages.push_back({"assistant", gen.generate(chat_tokens(tmpl, messages, options, *tok))});
            more = o.interactive;
        }
    }
    if (o.profile) {
        gen.session().profile().print(std::cerr);
        print_pipeline_statistics(gen.session().backend(), stderr);
    }
}

}  // namespace

void add_run_command(CLI::App& app) {
    auto o = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand("run", "Generate text with a model");
    add_model_options(*cmd, o->in);
    add_prompt_options(*cmd, o->in, /*optional=*/true);
    cmd->add_option("-n,--n-predict", o->n_predict, "Tokens to generate at most")->capture_default_str();
    cmd->add_option("--temp", o->sampling.temperature, "Temperature (0: greedy)")->capture_default_str();
    cmd->add_option("--top-k", o->sampling.top_k, "Top-k (0: off)")->capture_default_str();
    cmd->add_option("--top-p", o->sampling.top_p, "Top-p (1: off)")->capture_default_str();
    cmd->add_option("--min-p", o->sampling.min_p, "Min-p (0: off)")->capture_default_str();
    cmd->add_option("--repeat-penalty", o->sampling.repeat_penalty, "Repetition penalty (1: off)")->capture_default_str();
    cmd->add_option("--repeat-last-n", o->sampling.penalty_last_n, "Tokens the penalties look back on")->capture_default_str();
    cmd->add_option("--frequency-penalty", o->sampling.frequency_penalty, "Frequency penalty")->capture_default_str();
    cmd->add_option("--presence-penalty", o->sampling.presence_penalty, "Presence penalty")->capture_default_str();
    cmd->add_option("--seed", o->sampling.seed, "Random seed")->capture_default_str();
    cmd->add_flag("--chat", o->chat, "Format the prompt with the model's chat template");
    cmd->add_option("--chat-template", o->chat_template, "Template family: zephyr, llama2, llama3, chatml, qwen3, plain");
    cmd->add_flag("--no-think", o->no_think,
                  "With --chat or -i and Qwen3's template: answer without thinking first (enable_thinking=false)");
    cmd->add_flag("-i,--interactive", o->interactive, "Chat loop on stdin");
    cmd->add_flag("--profile", o->profile, "Print per-node times (and on Vulkan the driver's pipeline statistics) to stderr at the end");
    cmd->callback([o, cmd] {
        // -p "" is a prompt (generation from BOS); no prompt option at all is a mistake.
        const bool prompt_given = cmd->get_option("--prompt")->count() > 0;
        if (!o->chat && !o->interactive && !prompt_given && o->in.prompt_file.empty() && o->in.tokens.empty())
            throw Error("run needs a prompt: -p TEXT, -f FILE or --tokens IDS (or -i for a chat)");
        run_generate(*o);
    });
}

}  // namespace tessera::cli
