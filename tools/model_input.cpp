#include "tools/model_input.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <span>
#include <sstream>
#include <vector>

#include "kernels/cpu/integer_gemm.hpp"
#include "support/error.hpp"
#include "support/mapped_file.hpp"
#include "tools/option_checks.hpp"

namespace tessera::cli {

void add_model_options(CLI::App& cmd, ModelInput& in) {
    cmd.add_option("-m,--model", in.model,
                   "GGUF model file: a Llama-family GGUF such as TinyLlama-1.1B-Chat (tinyllama-1.1b-chat-v1.0.Q4_0.gguf "
                   "from Hugging Face), or a test model of ../shared/conformance/models/")
        ->required();
    cmd.add_option("-t,--threads", in.threads, "CPU threads (0: all cores)")
        ->check(CLI::Range(0, max_threads()))
        ->capture_default_str();
    in.ctx_option = cmd.add_option("-c,--ctx", in.ctx,
                                   "Context size in tokens (0: the model's training context; at most that)")
                        ->check(CLI::Range(int64_t{0}, int64_t{1} << 40))
                        ->capture_default_str();
    cmd.add_option("--batch", in.batch, "Prompt tokens per graph pass")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 30))
        ->capture_default_str();
    cmd.add_option("--kv-type", in.kv_type, "KV cache type")->check(CLI::IsMember({"f16", "f32"}))->capture_default_str();
    cmd.add_option("--activations", in.activations,
                   "How matmuls round activations: q16 (16-bit blocks, close to exact) or q8 (8-bit: llama.cpp's "
                   "blocks; a little faster)")
        ->check(CLI::IsMember({"q8", "q16"}))
        ->capture_default_str();
    in.backend_option = cmd.add_option("--backend", in.backend,
                                       "cpu, vulkan (a GPU; nodes without a Vulkan kernel run on the CPU) or auto "
                                       "(vulkan when a device works, else cpu); --devices implies vulkan")
                            ->check(CLI::IsMember({"cpu", "vulkan", "auto"}))
                            ->capture_default_str();
    auto* device = cmd.add_option("--device", in.device, "Vulkan device index (see `tessera devices`)")
                       ->check(CLI::NonNegativeNumber)
                       ->capture_default_str();
    auto* devices = cmd.add_option("--devices", in.devices,
                                   "Vulkan devices to split the model between by layer, e.g. 0,1: each holds a "
                                   "range of layers with their KV cache, the first also the token embedding, the "
                                   "last the output (docs/multi-gpu.md)")
                        ->delimiter(',')
                        ->check(device_index())
                        ->excludes(device);
    cmd.add_option("--split-mode", in.split_mode, "How --devices share the model: layer (ranges of layers)")
        ->check(CLI::IsMember({"layer"}))
        ->needs(devices)
        ->capture_default_str();
    cmd.add_option("--tensor-split", in.tensor_split,
                   "Each device's share of the layers' bytes, e.g. 3,1 (default: in proportion to free memory)")
        ->delimiter(',')
        ->check(finite_above(0))
        ->needs(devices);
    cmd.add_flag("--no-fuse", in.no_fuse,
                 "Run every graph node on its own (a GPU otherwise computes norms, rope, cache stores and swiglu "
                 "inside the matvecs that read them), to compare with the fused result");
    cmd.add_flag("--no-int-gemm,--no-amx", in.no_int_gemm,
                 "CPU prompts: multiply unrounded activations with the F32 GEMM even where the CPU has AMX tiles or "
                 "AVX-512 VNNI (whose integer paths round them to 16-bit blocks, as generation does; "
                 "docs/cpu-matmul.md)");
    cmd.add_flag("--mmap", in.mmap,
                 "Read the weights from the file's mapped pages (a GPU always does); the CPU backend otherwise "
                 "reads them from a private copy on transparent huge pages, which its matvecs read faster (of "
                 "the whole file where it takes at most half of the memory, else of as many tensors as that "
                 "leaves room for, the experts' last)");
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

std::string read_prompt_file(const std::string& path) {
    // Far more text than any context holds; a larger file is a wrong path.
    constexpr size_t kMaxBytes = size_t(256) << 20;
    try {
        const MappedFile file(path);
        if (file.bytes().size() > kMaxBytes)
            throw Error(path + ": " + std::to_string(file.bytes().size() >> 20) +
                        " MiB, more than a prompt file may hold (256 MiB)");
        return {reinterpret_cast<const char*>(file.bytes().data()), file.bytes().size()};
    } catch (const Error& e) {
        throw Error(std::string("prompt file (-f): ") + e.what());
    }
}

namespace {

// Reads a byte of every page of the tensors still in the file's mapping, so
// that load time is not hidden in the first token; on a large file reports
// its progress every `report` bytes.
void fault_in_mapped_tensors(const model::Model& m, const std::string& path, size_t report) {
    const auto bytes = m.file().bytes();
    std::vector<std::span<const uint8_t>> mapped;
    size_t total = 0;
    for (const gguf::TensorInfo& t : m.file().tensors())
        if (t.data.data() >= bytes.data() && t.data.data() < bytes.data() + bytes.size()) {
            mapped.push_back(t.data);
            total += t.data.size();
        }
    constexpr size_t kPage = 4096;
    volatile uint8_t sink = 0;
    size_t done = 0;
    for (const auto& span : mapped)
        for (size_t i = 0; i < span.size(); i += kPage, done += kPage) {
            sink = sink + span[i];
            if (total > report && done % report < kPage)
                std::fprintf(stderr, "\rloading %s: %3zu%%", path.c_str(), done * 100 / total);
        }
    if (total > report) std::fprintf(stderr, "\rloading %s: 100%%\n", path.c_str());
}

}  // namespace

std::unique_ptr<model::Model> open_model(const ModelInput& in) {
    const auto start = std::chrono::steady_clock::now();
    const FileMemory memory =
        in.backend == "cpu" && in.devices.empty() && !in.mmap ? FileMemory::HugePageCopy : FileMemory::Mapped;
    auto m = std::make_unique<model::Model>(gguf::File::open(in.model, memory));
    const auto bytes = m->file().bytes();
    const size_t report = size_t(256) << 20;
    uint64_t copied = 0;
    if (memory == FileMemory::HugePageCopy && !m->file().is_copy()) {
        // Too large to copy whole: the tensors every token reads whole, then experts, as many as fit.
        if (bytes.size() > report) std::fprintf(stderr, "loading %s: copying tensors onto huge pages\n", in.model.c_str());
        copied = m->copy_tensors_to_huge_pages();
    }
    // A copy, whole or of tensors, was read when made: the rest is faulted in.
    if (!m->file().is_copy()) fault_in_mapped_tensors(*m, in.model, report);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string how = m->file().is_copy() ? "copied to huge pages"
                            : copied > 0
                                ? "mapped, " + std::to_string(copied >> 20) + " MiB of its tensors copied to huge pages"
                                : "mapped";
    std::fprintf(stderr, "loaded %s (%.1f MiB, %s) in %.2f s\n", in.model.c_str(), double(bytes.size()) / (1 << 20),
                 how.c_str(), seconds);
    return m;
}

std::vector<int32_t> prompt_tokens(const ModelInput& in, const tokenizer::Tokenizer& tokenizer) {
    if (!in.tokens.empty()) {
        const size_t n_vocab = tokenizer.vocab().size();
        std::vector<int32_t> ids;
        std::stringstream ss(in.tokens);
        for (std::string item; std::getline(ss, item, ',');) {
            const size_t first = item.find_first_not_of(' '), last = item.find_last_not_of(' ');
            const std::string_view digits =
                first == std::string::npos ? std::string_view() : std::string_view(item).substr(first, last - first + 1);
            uint64_t id = 0;
            const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
            if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size())
                throw Error("--tokens: '" + item + "' is not a token id");
            if (ec == std::errc::result_out_of_range || id >= n_vocab)
                throw Error("--tokens: " + std::string(digits) + " is not a token id (the vocabulary has " +
                            std::to_string(n_vocab) + " tokens)");
            ids.push_back(int32_t(id));
        }
        return ids;
    }
    const std::string text = in.prompt_file.empty() ? in.prompt : read_prompt_file(in.prompt_file);
    return tokenizer.encode(text, {.add_special = true, .parse_special = in.special});
}

model::SessionOptions session_options(const ModelInput& in, const model::Model& model) {
    cpu::allow_integer_gemm(!in.no_int_gemm);  // process-wide, before any plan sizes its matmuls' work
    const int64_t train = model.hparams().n_ctx_train;
    int64_t n_ctx = in.ctx == 0 ? train : in.ctx;
    if (n_ctx > train) {
        if (in.ctx_option && in.ctx_option->count() > 0)
            std::fprintf(stderr, "warning: --ctx %lld is more than %s's training context of %lld tokens: using %lld\n",
                         static_cast<long long>(n_ctx), model.file().name().c_str(), static_cast<long long>(train),
                         static_cast<long long>(train));
        n_ctx = train;
    }
    return {.n_ctx = n_ctx,
            .kv_type = in.kv_type == "f32" ? GgmlType::F32 : GgmlType::F16,
            .batch = in.batch,
            .n_threads = in.threads,
            .activations = *parse_activation_precision(in.activations),
            .backend = !in.devices.empty() && in.backend_option->count() == 0 ? BackendKind::Vulkan
                                                                                 : *parse_backend_kind(in.backend),
            .device = in.device,
            .devices = in.devices,
            .tensor_split = in.tensor_split,
            .fuse = !in.no_fuse};
}

void print_notice(model::Session& session) {
    const std::string notice = session.take_notice();
    if (!notice.empty()) std::fprintf(stderr, "note: %s\n", notice.c_str());
}

}  // namespace tessera::cli
