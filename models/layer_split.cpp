#include "models/layer_split.hpp"

#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>

#include "support/error.hpp"

namespace tessera::model {

namespace {

std::string mib(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f MiB", bytes / (1024.0 * 1024.0));
    return text;
}

std::string share_list(const std::vector<double>& shares) {
    std::string s;
    for (double x : shares) {
        char text[32];
        std::snprintf(text, sizeof text, "%g", x);
        s += (s.empty() ? "" : ",") + std::string(text);
    }
    return s;
}

// What device i holds besides its layers.
double fixed_bytes(const SplitRequest& r, size_t i) {
    return r.reserve_bytes + (i == 0 ? r.first_bytes : 0) + (i + 1 == r.devices.size() ? r.last_bytes : 0);
}

double range_bytes(const SplitRequest& r, int first, int end) {
    return std::accumulate(r.layer_bytes.begin() + first, r.layer_bytes.begin() + end, 0.0);
}

// Layer l goes to the device whose part of the layers' bytes, in proportion
// to the weights, holds the middle of layer l.
std::vector<int> proportional(const std::vector<double>& layer_bytes, const std::vector<double>& weights) {
    const int n = int(layer_bytes.size());
    const double total = std::accumulate(layer_bytes.begin(), layer_bytes.end(), 0.0);
    const double weight_total = std::accumulate(weights.begin(), weights.end(), 0.0);
    std::vector<int> first(weights.size() + 1, n);
    first[0] = 0;
    size_t device = 0;
    double before = 0, bound = total * weights[0] / weight_total;
    for (int l = 0; l < n; ++l) {
        const double middle = before + layer_bytes[size_t(l)] / 2;
        while (device + 1 < weights.size() && middle >= bound) {
            first[++device] = l;
            bound += total * weights[device] / weight_total;
        }
        before += layer_bytes[size_t(l)];
    }
    return first;
}

// Each device in turn takes as many layers as its free memory holds, leaving
// one for each device after it; nullopt when the last cannot take the rest.
std::optional<std::vector<int>> greedy(const SplitRequest& r) {
    const int n = int(r.layer_bytes.size()), d = int(r.devices.size());
    std::vector<int> first{0};
    int l = 0;
    for (int i = 0; i < d; ++i) {
        const double room = r.free_bytes[size_t(i)] - fixed_bytes(r, size_t(i));
        const int last_allowed = i + 1 == d ? n : n - (d - 1 - i);
        double used = 0;
        const int start = l;
        while (l < last_allowed && used + r.layer_bytes[size_t(l)] <= room) used += r.layer_bytes[size_t(l++)];
        if (l == start) return std::nullopt;
        first.push_back(l);
    }
    if (l < n) return std::nullopt;
    return first;
}

bool fits(const SplitRequest& r, const std::vector<int>& first, size_t i) {
    return range_bytes(r, first[i], first[i + 1]) + fixed_bytes(r, i) <= r.free_bytes[i];
}

}  // namespace

std::string device_list(const std::vector<int>& devices) {
    std::string s;
    for (int d : devices) s += (s.empty() ? "" : ",") + std::to_string(d);
    return s;
}

std::vector<int> split_layers(const SplitRequest& r) {
    const size_t d = r.devices.size();
    const int n = int(r.layer_bytes.size());
    if (d == 0 || r.free_bytes.size() != d) throw Error("a layer split needs the free memory of each of its devices");
    if (!r.shares.empty() && r.shares.size() != d)
        throw Error("--tensor-split " + share_list(r.shares) + " gives " + std::to_string(r.shares.size()) +
                    " shares for " + std::to_string(d) + " devices (--devices " + device_list(r.devices) + ")");
    for (size_t i = 0; i < r.shares.size(); ++i)
        if (!std::isfinite(r.shares[i]) || r.shares[i] <= 0)
            throw Error("--tensor-split " + share_list(r.shares) + ": the share of device " +
                        std::to_string(r.devices[i]) + " is not a positive number");
    if (n < int(d))
        throw Error("a model of " + std::to_string(n) + " layers cannot be split over " + std::to_string(d) +
                    " devices (--devices " + device_list(r.devices) + "): each device needs a layer at least");

    if (!r.shares.empty()) {
        const std::vector<int> first = proportional(r.layer_bytes, r.shares);
        for (size_t i = 0; i < d; ++i) {
            if (first[i] == first[i + 1])
                throw Error("--tensor-split " + share_list(r.shares) + " leaves device " +
                            std::to_string(r.devices[i]) + " no layers (the model has " + std::to_string(n) + ")");
            if (!fits(r, first, i))
                throw Error("--tensor-split " + share_list(r.shares) + " gives device " + std::to_string(r.devices[i]) +
                            " layers " + std::to_string(first[i]) + "-" + std::to_string(first[i + 1] - 1) + ": " +
                            mib(range_bytes(r, first[i], first[i + 1]) + fixed_bytes(r, i)) + ", more than its " +
                            mib(r.free_bytes[i]) + " free");
        }
        return first;
    }

    std::vector<double> room(d);
    for (size_t i = 0; i < d; ++i) room[i] = std::max(0.0, r.free_bytes[i] - fixed_bytes(r, i));
    if (std::accumulate(room.begin(), room.end(), 0.0) > 0) {
        const std::vector<int> first = proportional(r.layer_bytes, room);
        bool ok = true;
        for (size_t i = 0; i < d; ++i) ok = ok && first[i] < first[i + 1] && fits(r, first, i);
        if (ok) return first;
    }
    if (auto first = greedy(r)) return *first;
    double needed = range_bytes(r, 0, n), free = 0;
    std::string each;
    for (size_t i = 0; i < d; ++i) {
        needed += fixed_bytes(r, i);
        free += r.free_bytes[i];
        each += (each.empty() ? "" : ", ") + std::to_string(r.devices[i]) + ": " + mib(r.free_bytes[i]);
    }
    throw Error("the model fits no split of its " + std::to_string(n) + " layers over devices " +
                device_list(r.devices) + ": it needs " + mib(needed) + " with its KV cache and activations, and " +
                "they have " + mib(free) + " free (" + each + "); use a smaller context or more devices");
}

}  // namespace tessera::model
