// Sampler stages and the seeded sampler, on small hand-made logit vectors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/sampler.hpp"
#include "support/error.hpp"

namespace tessera {
namespace {

SamplerParams unfiltered(float temperature, uint32_t seed = 42) {
    SamplerParams p;
    p.temperature = temperature;
    p.top_k = 0;
    p.top_p = 1.0f;
    p.min_p = 0.0f;
    p.seed = seed;
    return p;
}

std::vector<Candidate> candidates(const std::vector<float>& logits) {
    std::vector<Candidate> c;
    for (size_t i = 0; i < logits.size(); ++i) c.push_back({int32_t(i), logits[i]});
    sampling::sort_softmax(c);
    return c;
}

std::vector<int32_t> ids(const std::vector<Candidate>& cands) {
    std::vector<int32_t> out;
    for (const auto& c : cands) out.push_back(c.id);
    return out;
}

TEST(Sampler, GreedyPicksArgmax) {
    Sampler s(unfiltered(0.0f));
    EXPECT_EQ(s.sample(std::vector<float>{0.1f, 2.5f, -1.0f, 2.4f}), 1);
    EXPECT_EQ(s.sample(std::vector<float>{-3.0f, -2.0f, -2.0f}), 1);  // ties: lowest id
}

TEST(Sampler, TopKOneIsGreedy) {
    SamplerParams p = unfiltered(1.5f);
    p.top_k = 1;
    Sampler s(p);
    const std::vector<float> logits = {0.3f, 1.0f, 0.99f, -2.0f, 0.5f};
    for (int i = 0; i < 100; ++i) EXPECT_EQ(s.sample(logits), 1);
}

TEST(Sampler, DrawsFollowSoftmax) {
    const std::vector<float> logits = {1.0f, 0.0f, 2.0f, -1.0f, 0.5f};
    double sum = 0;
    for (float l : logits) sum += std::exp(l);
    Sampler s(unfiltered(1.0f, 1234));
    std::vector<int> counts(logits.size());
    const int n = 20000;
    for (int i = 0; i < n; ++i) ++counts[size_t(s.sample(logits))];
    for (size_t i = 0; i < logits.size(); ++i) {
        const double expected = std::exp(logits[i]) / sum;
        // 5 standard deviations of a binomial proportion: about 0.017 at most here.
        EXPECT_NEAR(double(counts[i]) / n, expected, 5 * std::sqrt(expected * (1 - expected) / n)) << "token " << i;
    }
}

TEST(Sampler, TemperatureSharpens) {
    const std::vector<float> logits = {1.0f, 0.0f};
    for (const float temp : {0.25f, 4.0f}) {
        Sampler s(unfiltered(temp, 7));
        int first = 0;
        const int n = 20000;
        for (int i = 0; i < n; ++i) first += s.sample(logits) == 0;
        const double expected = 1.0 / (1.0 + std::exp(-1.0 / temp));  // softmax of logits / temp
        EXPECT_NEAR(double(first) / n, expected, 0.02) << "temperature " << temp;
    }
}

TEST(Sampler, SameSeedSameTokens) {
    const std::vector<std::vector<float>> steps = {{0.1f, 0.2f, 0.3f, 0.0f}, {1.0f, 1.0f, 1.0f, 1.0f}, {2.0f, 0.0f, 1.0f, 1.5f}};
    SamplerParams p = unfiltered(1.0f, 99);
    p.repeat_penalty = 1.3f;
    Sampler a(p), b(p);
    std::vector<int32_t> ta, tb;
    for (int round = 0; round < 50; ++round)
        for (const auto& logits : steps) {
            ta.push_back(a.sample(logits));
            a.accept(ta.back());
            tb.push_back(b.sample(logits));
            b.accept(tb.back());
        }
    EXPECT_EQ(ta, tb);
    a.reset();
    std::vector<int32_t> again;
    for (int round = 0; round < 50; ++round)
        for (const auto& logits : steps) {
            again.push_back(a.sample(logits));
            a.accept(again.back());
        }
    EXPECT_EQ(again, ta);
    p.seed = 100;
    Sampler c(p);
    std::vector<int32_t> tc;
    for (int round = 0; round < 50; ++round)
        for (const auto& logits : steps) {
            tc.push_back(c.sample(logits));
            c.accept(tc.back());
        }
    EXPECT_NE(tc, ta);
}

TEST(Sampler, TopKKeepsTheKHighest) {
    std::vector<Candidate> c = {{0, 0.0f}, {1, 3.0f}, {2, 1.0f}, {3, 2.0f}, {4, 3.0f}};
    sampling::top_k(c, 3);
    EXPECT_EQ(ids(c), (std::vector<int32_t>{1, 4, 3}));  // 1 and 4 tie: lower id first
    c = candidates({0.0f, 3.0f, 1.0f, 2.0f});
    sampling::top_k(c, 2);
    sampling::sort_softmax(c);
    EXPECT_EQ(ids(c), (std::vector<int32_t>{1, 3}));
    EXPECT_NEAR(c[0].p + c[1].p, 1.0f, 1e-6f);
    EXPECT_NEAR(c[0].p, 1.0 / (1.0 + std::exp(-1.0)), 1e-6);
}

TEST(Sampler, TopPKeepsTheSmallestPrefixReachingP) {
    // Probabilities 0.5, 0.25, 0.125, 0.125 (logits are their logarithms).
    const std::vector<float> logits = {std::log(0.125f), std::log(0.5f), std::log(0.125f), std::log(0.25f)};
    auto c = candidates(logits);
    sampling::top_p(c, 0.7f);  // 0.5 < 0.7 <= 0.75
    EXPECT_EQ(ids(c), (std::vector<int32_t>{1, 3}));
    EXPECT_NEAR(c[0].p, 2.0 / 3.0, 1e-6);
    c = candidates(logits);
    sampling::top_p(c, 0.4f);
    EXPECT_EQ(ids(c), (std::vector<int32_t>{1}));
    c = candidates(logits);
    sampling::top_p(c, 0.8f);  // needs a third: ids 0 and 2 tie, the lower id ranks first
    EXPECT_EQ(ids(c), (std::vector<int32_t>{1, 3, 0}));
}

TEST(Sampler, MinPDropsTokensBelowTheFractionOfTheBest) {
    // Probabilities 0.5, 0.25, 0.125, 0.125: min_p 0.3 keeps p >= 0.15.
    auto c = candidates({std::log(0.5f), std::log(0.25f), std::log(0.125f), std::log(0.125f)});
    sampling::min_p(c, 0.3f);
    EXPECT_EQ(ids(c), (std::vector<int32_t>{0, 1}));
    c = candidates({std::log(0.5f), std::log(0.25f), std::log(0.125f), std::log(0.125f)});
    sampling::min_p(c, 0.2f);  // p >= 0.1 keeps all
    EXPECT_EQ(c.size(), 4u);

    // Through the sampler: token 2 is never drawn.
    SamplerParams p = unfiltered(1.0f);
    p.min_p = 0.3f;
    Sampler s(p);
    const std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.1f), std::log(0.1f)};
    for (int i = 0; i < 2000; ++i) EXPECT_LT(s.sample(logits), 2);
}

TEST(Sampler, PenaltiesFollowTheDefinition) {
    std::vector<float> logits = {2.0f, -2.0f, 1.0f, 0.5f};
    const std::vector<int32_t> history = {0, 1, 0, 3, 0};
    sampling::apply_penalties(logits, history, 2.0f, 0.1f, 0.25f);
    EXPECT_FLOAT_EQ(logits[0], 2.0f / 2 - 3 * 0.1f - 0.25f);   // three times
    EXPECT_FLOAT_EQ(logits[1], -2.0f * 2 - 1 * 0.1f - 0.25f);  // negative: multiplied
    EXPECT_FLOAT_EQ(logits[2], 1.0f);                          // not in the history
    EXPECT_FLOAT_EQ(logits[3], 0.5f / 2 - 0.1f - 0.25f);
}

TEST(Sampler, PenaltyWindowIsTheLastN) {
    SamplerParams p = unfiltered(0.0f);
    p.repeat_penalty = 10.0f;
    p.penalty_last_n = 2;
    Sampler s(p);
    const std::vector<float> logits = {3.0f, 2.0f, 1.0f};
    EXPECT_EQ(s.sample(logits), 0);
    s.accept(0);
    EXPECT_EQ(s.sample(logits), 1);  // 0 penalized to 0.3
    s.accept(1);
    EXPECT_EQ(s.sample(logits), 2);  // 0 and 1 penalized
    s.accept(2);                     // window is now {1, 2}: 0 is free again
    EXPECT_EQ(s.sample(logits), 0);
    EXPECT_THROW(Sampler{SamplerParams{.repeat_penalty = 0.0f}}, Error);
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a tessera::Error";
    return "";
}

// NaN passes a check written as "x < min || x > max": each one is named.
TEST(Sampler, RefusesParametersOutOfRangeOrNotFinite) {
    const float nan = std::nanf(""), inf = INFINITY;
    const std::pair<SamplerParams, const char*> bad[] = {
        {{.temperature = nan}, "temperature"},       {{.temperature = inf}, "temperature"},
        {{.top_p = 2.0f}, "top_p"},                  {{.top_p = nan}, "top_p"},
        {{.min_p = 5.0f}, "min_p"},                  {{.min_p = -0.5f}, "min_p"},
        {{.repeat_penalty = nan}, "repeat penalty"}, {{.frequency_penalty = inf}, "frequency penalty"},
        {{.presence_penalty = nan}, "presence penalty"},
    };
    for (const auto& [params, name] : bad)
        EXPECT_NE(error_of([&] { Sampler{params}; }).find(name), std::string::npos) << name;
}

// A NaN or +inf logit would win every comparison or none: reported, never sampled.
TEST(Sampler, RefusesNonFiniteLogits) {
    for (const float temperature : {0.0f, 0.8f}) {
        Sampler s(unfiltered(temperature));
        const std::string nan_error = error_of([&] { s.sample(std::vector<float>{1.0f, std::nanf(""), 2.0f}); });
        EXPECT_NE(nan_error.find("token 1 is nan"), std::string::npos) << nan_error;
        EXPECT_NE(error_of([&] { s.sample(std::vector<float>{INFINITY, 0.0f}); }).find("token 0 is inf"),
                  std::string::npos);
        EXPECT_NE(error_of([&] { s.sample(std::vector<float>{-INFINITY, -INFINITY}); }).find("every logit is -inf"),
                  std::string::npos);
        EXPECT_EQ(s.sample(std::vector<float>{-INFINITY, 1.0f}), 1);  // -inf only rules a token out
    }
}

}  // namespace
}  // namespace tessera
