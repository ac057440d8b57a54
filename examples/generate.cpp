// Loads a GGUF Llama, tokenizes a prompt and generates text greedily.
//   generate MODEL.gguf [prompt] [tokens]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "models/model.hpp"
#include "models/sampler.hpp"
#include "models/session.hpp"
#include "models/tokenizer/stream_decoder.hpp"
#include "models/tokenizer/tokenizer.hpp"

using namespace tessera;

int main(int argc, char** argv) {
    if (argc < 2) return std::fprintf(stderr, "usage: generate MODEL.gguf [prompt] [tokens]\n"), 2;
    const model::Model model = model::Model::open(argv[1]);
    const auto tok = tokenizer::Tokenizer::from_gguf(model.file());
    model::Session session(model, {.n_ctx = 512});
    Sampler sampler({.temperature = 0});  // greedy

    const std::vector<int32_t> prompt = tok->encode(argc > 2 ? argv[2] : "Once upon a time");
    tokenizer::StreamDecoder decoder(*tok);
    for (int32_t t : prompt) std::fputs(decoder.push(t).c_str(), stdout);  // primes the decoder
    std::vector<float> logits = session.eval(prompt);
    for (int i = 0, n = argc > 3 ? std::atoi(argv[3]) : 64; i < n; ++i) {
        const int32_t next = sampler.sample(logits);
        if (next == tok->vocab().data().eos_id) break;
        std::fputs(decoder.push(next).c_str(), stdout);
        logits = session.eval(std::vector<int32_t>{next});
    }
    std::puts(decoder.finish().c_str());
}
