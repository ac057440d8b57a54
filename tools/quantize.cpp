// `tessera quantize IN.gguf OUT.gguf TYPE`: requantize a model's weights.
#include <cstdio>
#include <iostream>

#include "kernels/quant/registry.hpp"
#include "models/gguf/file.hpp"
#include "models/quantize_model.hpp"
#include "tools/commands.hpp"

namespace tessera::cli {
namespace {

struct QuantizeOptions {
    std::string in, out, type;
    bool pure = false;
    bool quiet = false;
};

void run_quantize(const QuantizeOptions& opts) {
    QuantizePlan plan = QuantizePlan::parse(opts.type);
    plan.pure = opts.pure;
    const auto in = gguf::File::open(opts.in);
    const auto report = quantize_model(in, opts.out, plan, [&](const std::string& line) {
        if (!opts.quiet) std::fprintf(stderr, "%s\n", line.c_str());
    });
    std::fprintf(stderr, "%s: %llu tensors quantized (%llu by fallback), %llu kept; %.2f MiB -> %.2f MiB\n",
                 opts.out.c_str(), static_cast<unsigned long long>(report.tensors_quantized),
                 static_cast<unsigned long long>(report.tensors_fallback),
                 static_cast<unsigned long long>(report.tensors_copied), double(report.bytes_in) / (1 << 20),
                 double(report.bytes_out) / (1 << 20));
}

}  // namespace

void add_quantize_command(CLI::App& app) {
    auto opts = std::make_shared<QuantizeOptions>();
    auto* cmd = app.add_subcommand(
        "quantize",
        "Requantize a model. 1-D tensors and norms stay as they are; 2-D weights get TYPE "
        "(output.weight stays at Q6_K precision unless --pure)");
    cmd->add_option("in", opts->in, "Input GGUF model")->required();
    cmd->add_option("out", opts->out, "Output GGUF file")->required();
    cmd->add_option("type", opts->type, "Target type (Q4_0, Q4_K, Q8_0, F16, ...) or llama.cpp's mix Q4_K_M / Q5_K_M")->required();
    cmd->add_flag("--pure", opts->pure, "Every 2-D weight in TYPE (no output.weight exception)");
    cmd->add_flag("-q,--quiet", opts->quiet, "No per-tensor lines");
    cmd->callback([opts] { run_quantize(*opts); });
}

}  // namespace tessera::cli
