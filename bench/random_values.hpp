// Deterministic normal(0, 1) floats for the benchmarks' inputs and weights.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace tessera::bench {

inline std::vector<float> random_floats(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist;
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

}  // namespace tessera::bench
