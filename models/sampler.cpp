#include "models/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "support/error.hpp"

namespace tessera {
namespace sampling {
namespace {

void renormalize(std::vector<Candidate>& cands) {
    double sum = 0;
    for (const auto& c : cands) sum += c.p;
    for (auto& c : cands) c.p = float(c.p / sum);
}

}  // namespace

void apply_penalties(std::span<float> logits, std::span<const int32_t> history, float repeat_penalty,
                     float frequency_penalty, float presence_penalty) {
    std::unordered_map<int32_t, int> counts;
    for (const int32_t id : history)
        if (id >= 0 && size_t(id) < logits.size()) ++counts[id];
    for (const auto& [id, count] : counts) {
        float& l = logits[size_t(id)];
        l = l > 0 ? l / repeat_penalty : l * repeat_penalty;
        l -= float(count) * frequency_penalty + presence_penalty;
    }
}

bool ranks_before(const Candidate& a, const Candidate& b) {
    return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

void sort_softmax(std::vector<Candidate>& cands) {
    std::sort(cands.begin(), cands.end(), ranks_before);
    if (cands.empty()) return;
    const float max = cands.front().logit;
    double sum = 0;
    for (auto& c : cands) sum += c.p = std::exp(c.logit - max);
    for (auto& c : cands) c.p = float(c.p / sum);
}

void top_k(std::vector<Candidate>& cands, int k) {
    if (k <= 0 || size_t(k) >= cands.size()) return;
    std::partial_sort(cands.begin(), cands.begin() + k, cands.end(), ranks_before);
    cands.resize(size_t(k));
}

void top_p(std::vector<Candidate>& cands, float p) {
    if (p >= 1.0f) return;
    double cumulative = 0;
    size_t keep = 0;
    while (keep < cands.size()) {
        cumulative += cands[keep++].p;
        if (cumulative >= p) break;
    }
    cands.resize(std::max<size_t>(keep, 1));
    renormalize(cands);
}

void min_p(std::vector<Candidate>& cands, float min_p) {
    if (min_p <= 0.0f || cands.empty()) return;
    const float threshold = cands.front().p * min_p;
    size_t keep = 1;
    while (keep < cands.size() && cands[keep].p >= threshold) ++keep;
    cands.resize(keep);
    renormalize(cands);
}

}  // namespace sampling

Sampler::Sampler(const SamplerParams& params) : params_(params), rng_(params.seed) {
    const auto require = [](bool ok, const char* name, float value, const char* range) {
        if (!ok) throw Error("sampler: " + std::string(name) + " " + std::to_string(value) + " must be " + range);
    };
    // NaN fails every comparison: each check is written so that NaN fails it too.
    require(std::isfinite(params.temperature), "temperature", params.temperature, "a finite number");
    require(params.top_p >= 0.0f && params.top_p <= 1.0f, "top_p", params.top_p, "in [0, 1]");
    require(params.min_p >= 0.0f && params.min_p <= 1.0f, "min_p", params.min_p, "in [0, 1]");
    require(params.repeat_penalty > 0.0f && std::isfinite(params.repeat_penalty), "repeat penalty",
            params.repeat_penalty, "positive and finite");
    require(std::isfinite(params.frequency_penalty), "frequency penalty", params.frequency_penalty, "finite");
    require(std::isfinite(params.presence_penalty), "presence penalty", params.presence_penalty, "finite");
}

void Sampler::reset() {
    history_.clear();
    rng_.seed(params_.seed);
}

void Sampler::accept(int32_t token) {
    if (params_.penalty_last_n <= 0) return;
    history_.push_back(token);
    while (history_.size() > size_t(params_.penalty_last_n)) history_.pop_front();
}

int32_t Sampler::sample(std::span<const float> logits) {
    if (logits.empty()) throw Error("sampler: empty logits");
    // -inf rules a token out; NaN or +inf means the computation broke down (an
    // overflow, corrupt weights): refused rather than sampled as if it ranked.
    const auto broken = std::ranges::find_if(logits, [](float l) { return std::isnan(l) || l == INFINITY; });
    if (broken != logits.end())
        throw Error("the model's logit for token " + std::to_string(broken - logits.begin()) + " is " +
                    std::to_string(*broken) + ": its computation overflowed or its weights are corrupt; not sampled");
    if (std::ranges::all_of(logits, [](float l) { return l == -INFINITY; }))
        throw Error("every logit is -inf: no token can be sampled");
    std::vector<float> penalized(logits.begin(), logits.end());
    const std::vector<int32_t> history(history_.begin(), history_.end());
    sampling::apply_penalties(penalized, history, params_.repeat_penalty, params_.frequency_penalty,
                              params_.presence_penalty);

    if (params_.temperature <= 0.0f)  // the first maximum: ties go to the lowest id
        return int32_t(std::max_element(penalized.begin(), penalized.end()) - penalized.begin());

    std::vector<Candidate> cands(penalized.size());
    for (size_t i = 0; i < cands.size(); ++i) cands[i] = {int32_t(i), penalized[i]};
    sampling::top_k(cands, params_.top_k);
    sampling::sort_softmax(cands);
    sampling::top_p(cands, params_.top_p);
    sampling::min_p(cands, params_.min_p);
    for (auto& c : cands) c.logit /= params_.temperature;
    sampling::sort_softmax(cands);

    // A uniform draw in [0, 1) from 24 bits of the generator: the same on every platform,
    // unlike std::uniform_real_distribution.
    const double u = double(rng_() >> 8) / double(1u << 24);
    double cumulative = 0;
    for (const auto& c : cands) {
        cumulative += c.p;
        if (u < cumulative) return c.id;
    }
    return cands.back().id;
}

}  // namespace tessera
