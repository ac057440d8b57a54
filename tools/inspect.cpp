// `tessera inspect FILE`: metadata and tensor table of a GGUF file.
#include <cstdio>
#include <iostream>

#include "models/gguf/file.hpp"
#include "tools/commands.hpp"
#include "tools/terminal_text.hpp"
#include "tools/value_format.hpp"

namespace tessera::cli {
namespace {

struct InspectOptions {
    std::string path;
    bool json = false;
    size_t max_items = 8;
};

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
    cmd->callback([opts] {
        const auto file = gguf::File::open(opts->path);
        if (opts->json) print_json(file);
        else print_text(file, opts->max_items);
    });
}

}  // namespace tessera::cli
