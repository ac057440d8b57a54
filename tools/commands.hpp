// Each subcommand of the `tessera` CLI registers itself on the top-level app.
#pragma once

#include <CLI/CLI.hpp>

namespace tessera::cli {

void add_inspect_command(CLI::App& app);
void add_dequant_command(CLI::App& app);
void add_quantize_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_logits_command(CLI::App& app);
void add_trace_command(CLI::App& app);
void add_tokenize_command(CLI::App& app);
void add_make_model_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_devices_command(CLI::App& app);
void add_serve_command(CLI::App& app);

}  // namespace tessera::cli
