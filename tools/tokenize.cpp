// `tessera tokenize -m MODEL (-p TEXT | -f FILE)`: the token ids of a text
// with the model's tokenizer, on one line; --pieces lists id and vocabulary
// text per line instead.
#include <iostream>

#include "models/gguf/file.hpp"
#include "models/tokenizer/tokenizer.hpp"
#include "support/error.hpp"
#include "tools/commands.hpp"
#include "tools/model_input.hpp"

namespace tessera::cli {
namespace {

struct TokenizeOptions {
    std::string model;
    std::string prompt;
    std::string file;
    bool pieces = false;
    bool no_bos = false;
    bool special = false;
};

void run_tokenize(const TokenizeOptions& opts) {
    const auto file = gguf::File::open(opts.model);
    const auto tokenizer = tokenizer::Tokenizer::from_gguf(file);
    const std::string text = opts.file.empty() ? opts.prompt : read_prompt_file(opts.file);
    const auto ids = tokenizer->encode(text, {.add_special = !opts.no_bos, .parse_special = opts.special});
    if (opts.pieces) {
        for (const auto id : ids) std::cout << id << '\t' << tokenizer->vocab().text(id) << '\n';
        return;
    }
    for (size_t i = 0; i < ids.size(); ++i) std::cout << (i ? " " : "") << ids[i];
    std::cout << '\n';
}

}  // namespace

void add_tokenize_command(CLI::App& app) {
    auto opts = std::make_shared<TokenizeOptions>();
    auto* cmd = app.add_subcommand("tokenize", "Token ids of a text with a model's tokenizer");
    cmd->add_option("-m,--model", opts->model, "GGUF model or vocabulary file")->required();
    auto* input = cmd->add_option_group("input", "The text (exactly one of)");
    input->add_option("-p,--prompt", opts->prompt, "Text to tokenize");
    input->add_option("-f,--file", opts->file, "File whose exact bytes are the text");
    input->require_option(1);
    cmd->add_flag("--pieces", opts->pieces, "One token per line: id, tab, the token's vocabulary text");
    cmd->add_flag("--no-bos", opts->no_bos, "Add no BOS/EOS even where the model adds them");
    cmd->add_flag("--special", opts->special, "Recognize control tokens written in the text (e.g. </s>)");
    cmd->callback([opts] { run_tokenize(*opts); });
}

}  // namespace tessera::cli
