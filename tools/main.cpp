// tessera: one binary, one subcommand per job. Errors go to stderr with exit
// code 1 (bad input or requests), 2 (internal errors).
#include <exception>
#include <iostream>
#include <string>

#include "support/error.hpp"
#include "tools/commands.hpp"

namespace {

bool is_command(const CLI::App& app, const std::string& name) {
    for (const CLI::App* cmd : app.get_subcommands({}))
        if (cmd->get_name() == name) return true;
    return false;
}

std::string command_list(const CLI::App& app) {
    std::string names;
    for (const CLI::App* cmd : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + cmd->get_name();
    return names;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"tessera: modular LLM inference (GGUF models on CPU and Vulkan)", "tessera"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "tessera 0.1.0");
    tessera::cli::add_inspect_command(app);
    tessera::cli::add_dequant_command(app);
    tessera::cli::add_quantize_command(app);
    tessera::cli::add_run_command(app);
    tessera::cli::add_logits_command(app);
    tessera::cli::add_trace_command(app);
    tessera::cli::add_compare_command(app);
    tessera::cli::add_tokenize_command(app);
    tessera::cli::add_make_model_command(app);
    tessera::cli::add_bench_command(app);
    tessera::cli::add_devices_command(app);
    tessera::cli::add_serve_command(app);
    // CLI11 would say "A subcommand is required" for a misspelt one.
    if (argc > 1 && argv[1][0] != '-' && !is_command(app, argv[1])) {
        std::cerr << "tessera: error: unknown command '" << argv[1] << "'; the commands are: " << command_list(app)
                  << " (tessera --help says what each does)\n";
        return 1;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::RuntimeError& e) {
        return e.get_exit_code();  // a command's own code (compare: 3 when the traces differ)
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 1;  // --help is a ParseError too; a bad option is bad input
    } catch (const tessera::Error& e) {
        std::cerr << "tessera: error: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "tessera: internal error: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
