// Options shared by the commands that run a model: the model file, the
// prompt (-p TEXT, -f FILE or --tokens ids), threads, context and KV cache.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "models/session.hpp"
#include "models/tokenizer/tokenizer.hpp"

namespace tessera::cli {

struct ModelInput {
    std::string model;
    std::string prompt, prompt_file, tokens;
    int threads = 0;
    int64_t ctx = 2048;  // 0: the model's training context
    const CLI::Option* ctx_option = nullptr;  // whether --ctx was given
    int64_t batch = 512;
    std::string kv_type = "f16";
    std::string activations = "q16";
    std::string backend = "cpu";
    const CLI::Option* backend_option = nullptr;  // whether --backend was given
    int device = 0;
    std::vector<int> devices;          // --devices: the model split by layer between them
    std::string split_mode = "layer";  // --split-mode: how (the one way there is)
    std::vector<double> tensor_split;  // --tensor-split: each device's share of the layers
    bool no_fuse = false;
    bool no_int_gemm = false;
    bool mmap = false;
    bool special = false;
};

// -m (required), -t, -c/--ctx, --batch, --kv-type, --activations, --backend,
// --device, --devices, --split-mode, --tensor-split, --no-fuse, --no-int-gemm, --mmap;
// numbers checked against their ranges.
void add_model_options(CLI::App& cmd, ModelInput& in);
// -p / -f / --tokens (one of them required unless `optional`), --special.
void add_prompt_options(CLI::App& cmd, ModelInput& in, bool optional = false);

// A prompt file's exact bytes (-f): a regular file only, so that /dev/zero,
// a FIFO or a directory get an error instead of an endless or failing read.
std::string read_prompt_file(const std::string& path);

// Opens the model and touches its pages with progress on stderr for large files.
std::unique_ptr<model::Model> open_model(const ModelInput& in);
// The prompt's token ids: --tokens as given (each checked against the
// vocabulary), else the text tokenized with BOS as the model adds it.
std::vector<int32_t> prompt_tokens(const ModelInput& in, const tokenizer::Tokenizer& tokenizer);
// The session's options; --ctx 0 is the model's training context, and a
// --ctx above it is capped to it with a warning on stderr.
model::SessionOptions session_options(const ModelInput& in, const model::Model& model);
// Prints what the session has to say about where it runs (a fallback to the CPU) to stderr.
void print_notice(model::Session& session);

}  // namespace tessera::cli
