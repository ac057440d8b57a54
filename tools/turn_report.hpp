// The figures of one prompt and its reply, on stderr: tokens evaluated (and
// those the cache held already), speeds, and why the reply stopped when it
// was neither EOS nor the token limit.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "tools/generator.hpp"

namespace tessera::cli {

class TurnReport {
public:
    TurnReport() : start_(Clock::now()) {}
    // The prompt's `tokens`, of which `evaluated` were not in the cache; ends the prompt's time.
    void prompt(size_t tokens, size_t evaluated);
    // Prints the line, once the reply is done.
    void reply(const Generator::Reply& reply, int64_t n_ctx) const;

private:
    using Clock = std::chrono::steady_clock;
    Clock::time_point start_;
    size_t tokens_ = 0, evaluated_ = 0;
    double prompt_seconds_ = 0;
};

}  // namespace tessera::cli
