// Choosing the next token from a vector of logits, with llama.cpp's stages and
// their order: repetition penalties, top-k, top-p, min-p, temperature, then a
// draw from a seeded generator (or the argmax when the temperature is 0).
#pragma once

#include <cstdint>
#include <deque>
#include <random>
#include <span>
#include <vector>

namespace tessera {

struct SamplerParams {
    float temperature = 0.8f;        // <= 0: greedy (argmax after the penalties)
    int top_k = 40;                  // <= 0: off
    float top_p = 0.95f;             // >= 1: off
    float min_p = 0.05f;             // <= 0: off
    int penalty_last_n = 64;         // tokens of history the penalties look at; 0: none
    float repeat_penalty = 1.0f;     // 1: off
    float frequency_penalty = 0.0f;  // 0: off
    float presence_penalty = 0.0f;   // 0: off
    uint32_t seed = 0;
};

// A token still in the running: its logit and, once computed, its probability.
struct Candidate {
    int32_t id;
    float logit;
    float p = 0.0f;
};

// The stages, on a candidate list (exposed for testing and for custom chains).
namespace sampling {

// For each token that occurs c > 0 times in `history`: a positive logit is
// divided by repeat_penalty, a negative one multiplied by it; then
// c * frequency_penalty + presence_penalty is subtracted.
void apply_penalties(std::span<float> logits, std::span<const int32_t> history, float repeat_penalty,
                     float frequency_penalty, float presence_penalty);
// The sampling order: higher logit first, ties to the lower id.
bool ranks_before(const Candidate& a, const Candidate& b);
// Keeps the k candidates that rank first (any order in, sorted out); p is
// not updated: call sort_softmax next.
void top_k(std::vector<Candidate>& cands, int k);
// Sorts by ranks_before and sets p = softmax(logit).
void sort_softmax(std::vector<Candidate>& cands);
// Each of the following takes sorted candidates with their p, keeps at least
// one, and renormalizes p.
// The smallest prefix whose probabilities sum to at least `p`.
void top_p(std::vector<Candidate>& cands, float p);
// The candidates whose probability is at least `min_p` times the largest.
void min_p(std::vector<Candidate>& cands, float min_p);

}  // namespace sampling

class Sampler {
public:
    // Throws an Error naming a parameter that is NaN, infinite or out of its
    // range (top_p and min_p in [0, 1], repeat_penalty > 0).
    explicit Sampler(const SamplerParams& params);

    // The next token for these logits (one per vocabulary entry). Does not
    // record it: call accept() with the token actually used. Throws an Error
    // when a logit is NaN or +inf, or every one is -inf.
    int32_t sample(std::span<const float> logits);
    // Adds a token to the history the penalties look at.
    void accept(int32_t token);
    // Clears the history and restarts the generator from the seed.
    void reset();

    const SamplerParams& params() const { return params_; }

private:
    SamplerParams params_;
    std::mt19937 rng_;
    std::deque<int32_t> history_;  // the last penalty_last_n accepted tokens
};

}  // namespace tessera
