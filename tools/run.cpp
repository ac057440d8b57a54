// `tessera run -m MODEL (-p TEXT | -f FILE | --tokens IDS) [-n N] [sampling] [--chat] [-i] [--no-think]`:
// generates text, streaming it to stdout after the prompt (as llama.cpp's
// CLI echoes it; --no-display-prompt leaves it out) and ending it with a
// newline; load time and prompt / generation speed go to stderr. An empty
// prompt generates from BOS. --chat formats the prompt with the model's chat
// template; -i chats on stdin, keeping the context between turns.
#include <cstdio>
#include <iostream>
#include <optional>
#include <random>

#include "models/chat_template.hpp"
#include "support/error.hpp"
#include "tools/chat.hpp"
#include "tools/commands.hpp"
#include "tools/generator.hpp"
#include "tools/model_input.hpp"
#include "tools/option_checks.hpp"
#include "tools/pipeline_report.hpp"
#include "tools/sigint.hpp"
#include "tools/stdin_lines.hpp"
#include "tools/turn_report.hpp"

namespace tessera::cli {
namespace {

struct RunOptions {
    ModelInput in;
    int n_predict = 256;
    SamplerParams sampling;
    int64_t seed = 0;              // -1: random
    int repeat_last_n = 64;        // -1: the whole context
    bool chat = false, interactive = false, profile = false, no_think = false, no_display_prompt = false;
    std::string chat_template, system_prompt;
};

// One prompt, its continuation after it.
void generate_text(Generator& gen, const RunOptions& o, const std::vector<int32_t>& prompt, int64_t n_ctx_train) {
    if (o.n_predict >= 0 && int64_t(prompt.size()) + o.n_predict > gen.n_ctx())
        throw Error("the prompt (" + std::to_string(prompt.size()) + " tokens) plus " + std::to_string(o.n_predict) +
                    " generated tokens exceed the context of " + std::to_string(gen.n_ctx()) + " tokens (" +
                    (gen.n_ctx() < n_ctx_train ? "raise --ctx or lower -n" : "the model's training context: lower -n") +
                    ")");
    TurnReport report;
    report.prompt(prompt.size(), gen.feed(prompt));
    const Generator::Reply reply =
        gen.reply({.max_tokens = o.n_predict, .out = stdout, .echo_context = !o.no_display_prompt});
    std::fputs("\n", stdout);
    std::fflush(stdout);
    report.reply(reply, gen.n_ctx());
}

// The first message (-p / -f, if any), then with -i every non-empty line of
// stdin until its end or Ctrl-C at the prompt (`sigint`: made before any
// thread started; null without -i).
void chat(Generator& gen, const RunOptions& o, const model::Model& m, const tokenizer::Tokenizer& tok,
          SigintHandler* sigint) {
    const ChatTemplate tmpl = ChatTemplate::for_model(m.file(), o.chat_template);
    if (!tmpl.warning().empty()) std::fprintf(stderr, "warning: %s\n", tmpl.warning().c_str());
    if (o.no_think && !tmpl.has_thinking_switch())
        throw Error("--no-think: the chat template " + std::string(tmpl.name()) +
                    " has no thinking switch (Qwen3's template, qwen3, has one)");
    Chat conversation(gen, tok, tmpl, {.enable_thinking = !o.no_think}, o.system_prompt, o.n_predict);
    const std::string first = o.in.prompt_file.empty() ? o.in.prompt : read_prompt_file(o.in.prompt_file);
    if (!o.interactive) {
        if (!conversation.turn(first, nullptr)) throw Error("the message does not fit the context");
        return;
    }
    const auto interrupted = [sigint] { return sigint->raised(); };
    if (!first.empty()) conversation.turn(first, interrupted);
    StdinLines lines;
    for (std::string line;;) {
        sigint->clear();
        std::fputs("> ", stderr);
        std::fflush(stderr);
        if (lines.next(line, interrupted) != StdinLines::Result::Line) {
            std::fputs("\n", stderr);  // Ctrl-D or Ctrl-C: the shell's prompt on a line of its own
            return;
        }
        if (line.find_first_not_of(" \t") == std::string::npos) continue;  // an empty line is not a message
        conversation.turn(line, interrupted);
    }
}

void run_generate(RunOptions o) {
    // Before any thread starts, so that every thread inherits its block of SIGINT.
    std::optional<SigintHandler> sigint;
    if (o.interactive) sigint.emplace();
    const auto m = open_model(o.in);
    const auto tok = tokenizer::Tokenizer::from_gguf(m->file());
    const model::SessionOptions session = [&] {
        model::SessionOptions s = session_options(o.in, *m);
        s.profile = o.profile;
        return s;
    }();
    if (o.seed < 0) {
        o.sampling.seed = std::random_device{}();
        std::fprintf(stderr, "seed: %u\n", o.sampling.seed);
    } else {
        o.sampling.seed = uint32_t(o.seed);
    }
    o.sampling.penalty_last_n = o.repeat_last_n < 0 ? int(session.n_ctx) : o.repeat_last_n;
    Generator gen(*m, *tok, session, o.sampling);
    if (o.chat || o.interactive) {
        chat(gen, o, *m, *tok, sigint ? &*sigint : nullptr);
    } else {
        // An empty text is BOS alone where the model adds one (llama.cpp's behaviour), else nothing.
        const std::vector<int32_t> prompt = prompt_tokens(o.in, *tok);
        if (prompt.empty())
            throw Error("the prompt is empty and " + m->file().name() +
                        " adds no BOS token to generate from; give a prompt (-p TEXT, -f FILE or --tokens IDS)");
        generate_text(gen, o, prompt, m->hparams().n_ctx_train);
    }
    if (o.profile) {
        gen.session().profile().print(std::cerr);
        print_pipeline_statistics(gen.session().backend(), stderr);
    }
}

// Options that mean nothing in the mode chosen: an error where the request
// cannot be met, a warning where it is merely ignored.
void check_combination(const RunOptions& o, const CLI::App& cmd) {
    const bool chatting = o.chat || o.interactive;
    if (chatting && !o.in.tokens.empty())
        throw Error("--tokens gives token ids, but --chat and -i format text with the chat template: give the first "
                    "message with -p or -f");
    if (!chatting)
        for (const char* name : {"--chat-template", "--no-think", "--system-prompt"})
            if (cmd.get_option(name)->count() > 0)
                std::fprintf(stderr, "warning: %s has no effect without --chat or -i\n", name);
    // -p "" is a prompt (generation from BOS); no prompt option at all is a mistake.
    if (!o.interactive && cmd.get_option("--prompt")->count() == 0 && o.in.prompt_file.empty() && o.in.tokens.empty())
        throw Error("run needs a prompt: -p TEXT, -f FILE or --tokens IDS (or -i for a chat)");
}

}  // namespace

void add_run_command(CLI::App& app) {
    auto o = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand("run", "Generate text with a model");
    add_model_options(*cmd, o->in);
    add_prompt_options(*cmd, o->in, /*optional=*/true);
    cmd->add_option("-n,--n-predict", o->n_predict, "Tokens to generate at most (-1: until EOS or a full context)")
        ->check(CLI::Range(-1, 1 << 30))
        ->capture_default_str();
    cmd->add_option("--temp", o->sampling.temperature, "Temperature (0: greedy)")
        ->check(finite_between(0, 1e6))
        ->capture_default_str();
    cmd->add_option("--top-k", o->sampling.top_k, "Top-k (0: off)")->check(CLI::Range(0, 1 << 30))->capture_default_str();
    cmd->add_option("--top-p", o->sampling.top_p, "Top-p (1: off)")->check(finite_between(0, 1))->capture_default_str();
    cmd->add_option("--min-p", o->sampling.min_p, "Min-p (0: off)")->check(finite_between(0, 1))->capture_default_str();
    cmd->add_option("--repeat-penalty", o->sampling.repeat_penalty, "Repetition penalty (1: off)")
        ->check(finite_above(0))
        ->capture_default_str();
    cmd->add_option("--repeat-last-n", o->repeat_last_n,
                    "Tokens the penalties look back on (0: none, -1: the whole context)")
        ->check(CLI::Range(-1, 1 << 30))
        ->capture_default_str();
    cmd->add_option("--frequency-penalty", o->sampling.frequency_penalty, "Frequency penalty")
        ->check(finite_number())
        ->capture_default_str();
    cmd->add_option("--presence-penalty", o->sampling.presence_penalty, "Presence penalty")
        ->check(finite_number())
        ->capture_default_str();
    cmd->add_option("-s,--seed", o->seed, "Random seed (-1: a random one, printed on stderr)")
        ->check(CLI::Range(int64_t{-1}, int64_t{0xFFFFFFFF}))
        ->capture_default_str();
    cmd->add_flag("--no-display-prompt", o->no_display_prompt, "Print only the generated text, not the prompt before it");
    cmd->add_flag("--chat", o->chat, "Format the prompt with the model's chat template");
    cmd->add_option("--chat-template", o->chat_template, "Template family: zephyr, llama2, llama3, chatml, qwen3, gemma, phi3, plain");
    cmd->add_option("--system-prompt", o->system_prompt, "With --chat or -i: a system message first");
    cmd->add_flag("--no-think", o->no_think,
                  "With --chat or -i and Qwen3's template: answer without thinking first (enable_thinking=false)");
    cmd->add_flag("-i,--interactive", o->interactive,
                  "Chat on stdin, keeping the context between turns (the oldest exchanges are dropped when it is "
                  "full); Ctrl-C stops a reply, Ctrl-C at the prompt or Ctrl-D ends");
    cmd->add_flag("--profile", o->profile, "Print per-node times (and on Vulkan the driver's pipeline statistics) to stderr at the end");
    cmd->callback([o, cmd] {
        check_combination(*o, *cmd);
        run_generate(*o);
    });
}

}  // namespace tessera::cli
