#include "tools/model_input.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "support/error.hpp"

namespace tessera::cli {

void add_model_options(CLI::App& cmd, ModelInput& in) {
    cmd.add_option("-m,--model", in.model, "GGUF model file");
    cmd.add_option("-t,--threads", in.threads, "CPU threads (default: all cores)");
    cmd.add_option("--ctx", in.ctx, "Context size in tokens")->capture_default_str();
    cmd.add_option("--batch", in.batch, "Prompt tokens per graph pass")->capture_default_str();
    cmd.add_option("--kv-type", in.kv_type, "KV cache type")->check(CLI::IsMember({"f16", "f32"}))->capture_default_str();
    cmd.add_option("--activations", in.activations,
                   "How matmuls round activations: q16 (16-bit blocks, close to exact) or q8 (8-bit: llama.cpp's "
                   "blocks; a little faster)")
        ->check(CLI::IsMember({"q8", "q16"}))
        ->capture_default_str();
    cmd.add_option("--backend", in.backend,
                   "cpu, vulkan (a GPU; nodes without a Vulkan kernel run on the CPU) or auto (vulkan when a device "
                   "works, else cpu)")
        ->check(CLI::IsMember({"cpu", "vulkan", "auto"}))
        ->capture_default_str();
    cmd.add_option("--device", in.device, "Vulkan device index (see `tessera devices`)")->capture_default_str();
    cmd.add_flag("--no-fuse", in.no_fuse,
                 "Run every graph node on its own (a GPU otherwise computes norms, rope, cache stores and swiglu "
                 "inside the matvecs that read them), to compare with the fused result");
    cmd.add_flag("--mmap", in.mmap,
                 "Read the weights from the file's mapped pages (a GPU always does); the CPU backend otherwise "
                 "reads them from a private copy on transparent huge pages, which its matvecs read faster");
}

void add_prompt_options(CLI::App& cmd, ModelInput& in, bool optional) {
    auto* group = cmd.add_option_group("prompt", "The prompt (one of)");
    group->add_option("-p,--prompt", in.prompt, "Prompt text");
    group->add_option("-f,--file", in.prompt_file, "File whose exact bytes are the prompt");
    group->add_option("--tokens", in.tokens, "Prompt as token ids, e.g. 1,450,4996");
    if (optional) group->require_option(0, 1);
    else group->require_option(1);
    cmd.add_flag("--special", in.special, "Recognize control tokens written in the prompt (e.g. </s>)");
}

std::string read_exact(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::unique_ptr<model::Model> open_model(const ModelInput& in) {
    if (in.model.empty())
        throw Error("no model given: pass -m FILE.gguf, a Llama-family GGUF such as TinyLlama-1.1B-Chat "
                    "(e.g. tinyllama-1.1b-chat-v1.0.Q4_0.gguf from Hugging Face), or one of the test models in "
                    "../shared/conformance/models/");
    const auto start = std::chrono::steady_clock::now();
    const FileMemory memory = in.backend == "cpu" && !in.mmap ? FileMemory::HugePageCopy : FileMemory::Mapped;
    auto m = std::make_unique<model::Model>(gguf::File::open(in.model, memory));
    // Fault a mapping in now, so that load time is not hidden in the first
    // token (a huge-page copy was read whole when the file was opened).
    const auto bytes = m->file().bytes();
    if (!m->file().is_copy()) {
        const size_t step = 4096, report = size_t(256) << 20;
        volatile uint8_t sink = 0;
        for (size_t i = 0; i < bytes.size(); i += step) {
            sink = sink + bytes[i];
            if (bytes.size() > report && i % report < step)
                std::fprintf(stderr, "\rloading %s: %3zu%%", in.model.c_str(), i * 100 / bytes.size());
        }
        if (bytes.size() > report) std::fprintf(stderr, "\rloading %s: 100%%\n", in.model.c_str());
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "loaded %s (%.1f MB, %s) in %.2f s\n", in.model.c_str(), double(bytes.size()) / 1e6,
                 m->file().is_copy() ? "copied to huge pages" : "mapped", seconds);
    return m;
}

std::vector<int32_t> prompt_tokens(const ModelInput& in, const tokenizer::Tokenizer& tokenizer) {
    if (!in.tokens.empty()) {
        std::vector<int32_t> ids;
        std::stringstream ss(in.tokens);
        for (std::string item; std::getline(ss, item, ',');) {
            try {
                size_t used = 0;
                ids.push_back(int32_t(std::stol(item, &used)));
                if (used != item.size()) throw std::invalid_argument(item);
            } catch (const std::logic_error&) {
                throw Error("--tokens: '" + item + "' is not a token id");
            }
        }
        return ids;
    }
    const std::string text = in.prompt_file.empty() ? in.prompt : read_exact(in.prompt_file);
    return tokenizer.encode(text, {.add_special = true, .parse_special = in.special});
}

model::SessionOptions session_options(const ModelInput& in) {
    return {.n_ctx = in.ctx,
            .kv_type = in.kv_type == "f32" ? GgmlType::F32 : GgmlType::F16,
            .batch = in.batch,
            .n_threads = in.threads,
            .activations = *parse_activation_precision(in.activations),
            .backend = *parse_backend_kind(in.backend),
            .device = in.device,
            .fuse = !in.no_fuse};
}

void print_notice(model::Session& session) {
    const std::string notice = session.take_notice();
    if (!notice.empty()) std::fprintf(stderr, "note: %s\n", notice.c_str());
}

}  // namespace tessera::cli
