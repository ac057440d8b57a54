// `tessera trace -m MODEL (-p TEXT | -f FILE | --tokens IDS) -o DIR`: every
// node's output of the prompt's first graph pass, for `tessera compare`.
#include <cstdio>

#include "tools/commands.hpp"
#include "tools/model_input.hpp"

namespace tessera::cli {
namespace {

struct TraceOptions {
    ModelInput in;
    std::string dir;
};

void run_trace(const TraceOptions& o) {
    const auto m = open_model(o.in);
    const auto tokenizer = tokenizer::Tokenizer::from_gguf(m->file());
    const std::vector<int32_t> tokens = prompt_tokens(o.in, *tokenizer);
    model::Session session(*m, session_options(o.in, *m));
    session.trace_next_pass(o.dir);
    session.eval(tokens);
    print_notice(session);
    std::fprintf(stderr, "traced %zu tokens into %s (index.json lists the nodes)\n", tokens.size(), o.dir.c_str());
}

}  // namespace

void add_trace_command(CLI::App& app) {
    auto o = std::make_shared<TraceOptions>();
    auto* cmd = app.add_subcommand("trace", "Dump every node's output of a prompt's first pass");
    add_model_options(*cmd, o->in);
    add_prompt_options(*cmd, o->in);
    cmd->add_option("-o,--out", o->dir, "Output directory")->required();
    cmd->callback([o] { run_trace(*o); });
}

}  // namespace tessera::cli
