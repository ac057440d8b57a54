// `tessera inspect FILE`: metadata and tensor table of a GGUF file; with
// --ctx, the memory a session of that context would take.
#include <cstdio>
#include <iostream>

#include "models/gguf/file.hpp"
#include "models/kv_cache.hpp"
#include "models/memory_estimate.hpp"
#include "models/model.hpp"
#include "tools/commands.hpp"
#include "tools/terminal_text.hpp"
#include "tools/value_format.hpp"

namespace tessera::cli {
namespace {

struct InspectOptions {
    std::string path;
    bool json = false;
    size_t max_items = 8;
    int64_t n_ctx = 0;  // 0: no memory report
    std::string kv_type = "f16";
    int64_t batch = 512;
};

// The KV cache and activations of a session: what Session would allocate
// (the context is not capped at the training context here, so that any
// size can be asked about).
void print_memory(const InspectOptions& o) {
    const model::Model m = model::Model::open(o.path);
    const GgmlType kv = o.kv_type == "f32" ? GgmlType::F32 : GgmlType::F16;
    const model::MemoryEstimate e = model::estimate_memory(m, o.n_ctx, kv, o.batch);
    constexpr double kMiB = 1024.0 * 1024.0;
    std::printf("\na context of %lld tokens (KV cache %s, batches of %lld): KV cache %.1f MiB, activations %.1f MiB\n",
                static_cast<long long>(o.n_ctx), o.kv_type.c_str(), static_cast<long long>(o.batch),
                e.kv_cache / kMiB, e.activations / kMiB);
    int64_t windowed = 0, rows = 0;
    for (int l = 0; l < int(m.hparams().n_layer); ++l)
        if (m.sliding_window(l) > 0) {
            ++windowed;
            rows = model::KvCache::rows_for(m, l, o.n_ctx, o.batch);
        }
    if (windowed > 0)
        std::printf("%lld of %lld layers attend to a sliding window of %lld positions and keep %lld cache rows each\n",
                    static_cast<long long>(windowed), static_cast<long long>(m.hparams().n_layer),
                    static_cast<long long>(m.sliding_window(0) > 0 ? m.sliding_window(0) : 0),
                    static_cast<long long>(rows));
}

void print_json(const gguf::File& file) {
    nlohmann::json out;
    out["file"] = file.name();
    out["version"] = file.version();
    out["alignment"] = file.alignment();
    out["data_offset"] = file.data_offset();
    auto& meta = out["metadata"] = nlohmann::json::object();
    for (const auto& kv : file.metadata())
        meta[kv.key] = {{"type", gguf::value_type_name(kv.value.type())}, {"value", value_to_json(kv.value)}};
    auto& tensors = out["tensors"] = nlohmann::json::array();
    for (const auto& t : file.tensors())
        tensors.push_back({{"name", t.name},
                           {"type", t.type.name},
                           {"shape", t.ne},
                           {"offset", t.offset},
                           {"bytes", t.data.size()}});
    // ensure_ascii: every character beyond ASCII, control characters too, as \uXXXX (safe on a terminal).
    std::cout << out.dump(1, ' ', true, nlohmann::json::error_handler_t::replace) << "\n";
}

void print_text(const gguf::File& file, size_t max_items) {
    std::printf("%s: GGUF v%u, alignment %u, %zu metadata keys, %zu tensors, data at offset %llu\n\n",
                terminal_safe(file.name()).c_str(), file.version(), file.alignment(), file.metadata().size(),
                file.tensors().size(), static_cast<unsigned long long>(file.data_offset()));
    size_t key_width = 3;
    for (const auto& kv : file.metadata()) key_width = std::max(key_width, terminal_safe(kv.key).size());
    std::printf("%-*s  %-7s  %s\n", int(key_width), "key", "type", "value");
    for (const auto& kv : file.metadata())
        std::printf("%-*s  %-7s  %s\n", int(key_width), terminal_safe(kv.key).c_str(),
                    std::string(gguf::value_type_name(kv.value.type())).c_str(),
                    format_value(kv.value, max_items).c_str());

    size_t name_width = 4;
    uint64_t total = 0;
    for (const auto& t : file.tensors()) name_width = std::max(name_width, terminal_safe(t.name).size());
    std::printf("\n%-*s  %-7s  %-22s  %12s\n", int(name_width), "name", "type", "shape", "bytes");
    for (const auto& t : file.tensors()) {
        std::printf("%-*s  %-7s  %-22s  %12zu\n", int(name_width), terminal_safe(t.name).c_str(),
                    std::string(t.type.name).c_str(), t.shape_string().c_str(), t.data.size());
        total += t.data.size();
    }
    std::printf("\n%zu tensors, %.2f MiB of tensor data\n", file.tensors().size(), double(total) / (1 << 20));
}

}  // namespace

void add_inspect_command(CLI::App& app) {
    auto opts = std::make_shared<InspectOptions>();
    auto* cmd = app.add_subcommand("inspect", "Show a GGUF file's metadata and tensor table");
    cmd->add_option("file", opts->path, "GGUF file")->required();
    cmd->add_flag("--json", opts->json, "Machine-readable JSON (every array in full)");
    cmd->add_option("--max-items", opts->max_items, "Array items shown per metadata value (text mode)")
        ->capture_default_str();
    cmd->add_option("--ctx", opts->n_ctx, "Also show the memory a session of this many tokens would take")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
    cmd->add_option("--kv-type", opts->kv_type, "KV cache type for --ctx")
        ->check(CLI::IsMember({"f16", "f32"}))
        ->capture_default_str();
    cmd->add_option("--batch", opts->batch, "Prompt tokens per graph pass, for --ctx")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 30))
        ->capture_default_str();
    cmd->callback([opts] {
        const auto file = gguf::File::open(opts->path);
        if (opts->json) print_json(file);
        else print_text(file, opts->max_items);
        if (opts->n_ctx > 0) print_memory(*opts);
    });
}

}  // namespace tessera::cli
