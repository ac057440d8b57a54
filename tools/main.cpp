// tessera: one binary, one subcommand per job. Errors go to stderr with exit
// code 1 (bad input or requests), 2 (internal errors).
#include <exception>
#include <iostream>

#include "support/error.hpp"
#include "tools/commands.hpp"

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
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const tessera::Error& e) {
        std::cerr << "tessera: error: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "tessera: internal error: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
