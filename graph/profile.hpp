// Per-node timing collected by the executor's profile mode, and the table
// it prints: one line per node (op, shape, backend, time, GFLOP/s, GB/s),
// then totals per op, then the steps of a pass in wall-clock time (the
// planning, each segment with the time of its nodes beside it): where a
// step's wall time exceeds its nodes', the host or a wait took the rest.
#pragma once

#include <chrono>
#include <iosfwd>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/tensor.hpp"

namespace tessera {

// Wall-clock seconds from t0 until now: how the host's steps are timed.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class Profile {
public:
    // Entries are copies (they outlive the graph): one per node name and shape.
    struct Entry {
        std::string name, op, shape, backend;
        double flops = 0, bytes = 0;  // per run
        int runs = 0;
        double seconds = 0;
    };

    // A step of a pass, timed on the host: "plan", "segment 2 vulkan1", ...
    struct Step {
        std::string name;
        int runs = 0, nodes = 0;
        double seconds = 0;       // wall clock, over all runs
        double node_seconds = 0;  // its nodes' times (a device's timestamps), over all runs
    };

    void add(const Tensor& node, std::string_view backend, double seconds);
    void add(const Entry& e);  // merges another profile's entry
    void add_step(const Step& s);  // merges steps of the same name
    const std::vector<Entry>& entries() const { return entries_; }
    const std::vector<Step>& steps() const { return steps_; }
    double total_seconds() const;
    // Times are per run (averaged over runs).
    void print(std::ostream& out) const;

private:
    std::vector<Entry> entries_;  // in first-run order
    std::unordered_map<std::string, size_t> index_;  // name + shape
    std::vector<Step> steps_;  // in first-run order
};

}  // namespace tessera
