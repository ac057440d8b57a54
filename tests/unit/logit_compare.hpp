// What the conformance tests compare logits with: golden files of raw
// float32 and JSON, KL divergence of the softmaxes, argmax.
#pragma once

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <span>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessera::test {

// A headerless little-endian float32 file.
inline std::vector<float> read_f32(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    std::vector<float> v(size_t(std::filesystem::file_size(p) / 4));
    in.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * 4));
    return v;
}

// A JSON golden file; a missing one is named, not parsed as empty.
inline nlohmann::json read_json(const std::filesystem::path& p) {
    std::ifstream in(p);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    return nlohmann::json::parse(in);
}

// KL(softmax(p) || softmax(q)), in nats.
inline double kl(std::span<const float> p, std::span<const float> q) {
    const double pmax = *std::max_element(p.begin(), p.end()), qmax = *std::max_element(q.begin(), q.end());
    double ps = 0, qs = 0;
    for (size_t i = 0; i < p.size(); ++i) {
        ps += std::exp(double(p[i]) - pmax);
        qs += std::exp(double(q[i]) - qmax);
    }
    double sum = 0;
    for (size_t i = 0; i < p.size(); ++i) {
        const double lp = double(p[i]) - pmax - std::log(ps), lq = double(q[i]) - qmax - std::log(qs);
        sum += std::exp(lp) * (lp - lq);
    }
    return sum;
}

inline int argmax(std::span<const float> v) { return int(std::max_element(v.begin(), v.end()) - v.begin()); }

// How far the top-1 leads the top-2.
inline double top_gap(std::span<const float> v) {
    std::vector<float> s(v.begin(), v.end());
    std::partial_sort(s.begin(), s.begin() + 2, s.end(), std::greater<>());
    return double(s[0]) - double(s[1]);
}

}  // namespace tessera::test
