// `tessera logits -m MODEL (-p TEXT | -f FILE | --tokens IDS) -o OUT.f32 [--all]`:
// raw float32 logits of the last (or every) prompt position, the prompt
// decoded in one batch as llama.cpp's goldens were.
#include <cstdio>

#include "support/output_file.hpp"
#include "tools/commands.hpp"
#include "tools/model_input.hpp"

namespace tessera::cli {
namespace {

struct LogitsOptions {
    ModelInput in;
    std::string out;
    bool all = false;
};

void run_logits(const LogitsOptions& o) {
    refuse_overwriting_input(o.in.model, o.out);
    if (!o.in.prompt_file.empty()) refuse_overwriting_input(o.in.prompt_file, o.out);
    OutputFile out(o.out);  // before the model runs: a path that cannot be written fails at once
    const auto m = open_model(o.in);
    const auto tokenizer = tokenizer::Tokenizer::from_gguf(m->file());
    const std::vector<int32_t> tokens = prompt_tokens(o.in, *tokenizer);
    model::Session session(*m, session_options(o.in, *m));
    const std::vector<float> logits = session.eval(tokens, o.all);
    print_notice(session);
    out.write(std::span<const float>(logits));
    out.commit();
    std::fprintf(stderr, "%zu tokens -> %zu logits x %lld positions in %s\n", tokens.size(),
                 size_t(m->hparams().n_vocab), static_cast<long long>(o.all ? tokens.size() : 1), o.out.c_str());
}

}  // namespace

void add_logits_command(CLI::App& app) {
    auto o = std::make_shared<LogitsOptions>();
    auto* cmd = app.add_subcommand("logits", "Write the raw float32 logits of a prompt");
    add_model_options(*cmd, o->in);
    add_prompt_options(*cmd, o->in);
    cmd->add_option("-o,--out", o->out, "Output .f32 file (n_vocab floats per position)")->required();
    cmd->add_flag("--all", o->all, "Logits of every prompt position, not only the last");
    cmd->callback([o] { run_logits(*o); });
}

}  // namespace tessera::cli
