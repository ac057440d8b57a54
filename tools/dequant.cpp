// `tessera dequant FILE TENSOR OUT.f32`: a tensor's values as raw little-endian float32 rows.
#include <cstdio>
#include <vector>

#include "kernels/quant/registry.hpp"
#include "models/gguf/file.hpp"
#include "support/output_file.hpp"
#include "tools/commands.hpp"

namespace tessera::cli {
namespace {

struct DequantOptions {
    std::string path, tensor, out;
};

void run_dequant(const DequantOptions& opts) {
    const auto file = gguf::File::open(opts.path);
    const auto& t = file.tensor(opts.tensor);
    const auto& type = require_quant_type(t.type.id, opts.path + ": tensor " + t.name);
    refuse_overwriting_input(opts.path, opts.out);
    OutputFile out(opts.out);
    const uint64_t row_elems = t.ne[0];
    const size_t row_size = row_bytes(t.type, row_elems);
    std::vector<float> row(row_elems);
    for (uint64_t r = 0; r < t.n_rows(); ++r) {
        type.dequantize_row(t.data.data() + r * row_size, row.data(), int64_t(row_elems));
        out.write(std::span<const float>(row));
    }
    out.commit();
    std::fprintf(stderr, "%s: %llu rows x %llu values (%s) -> %s\n", t.name.c_str(),
                 static_cast<unsigned long long>(t.n_rows()), static_cast<unsigned long long>(row_elems),
                 std::string(t.type.name).c_str(), opts.out.c_str());
}

}  // namespace

void add_dequant_command(CLI::App& app) {
    auto opts = std::make_shared<DequantOptions>();
    auto* cmd = app.add_subcommand("dequant", "Write one tensor's values as raw little-endian float32 rows");
    cmd->add_option("file", opts->path, "GGUF file")->required();
    cmd->add_option("tensor", opts->tensor, "Tensor name, e.g. blk.0.ffn_up.weight")->required();
    cmd->add_option("out", opts->out, "Output .f32 file")->required();
    cmd->callback([opts] { run_dequant(*opts); });
}

}  // namespace tessera::cli
