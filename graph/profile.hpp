// Per-node timing collected by the executor's profile mode, and the table
// it prints: one line per node (op, shape, backend, time, GFLOP/s, GB/s),
// then totals per op.
#pragma once

#include <iosfwd>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/tensor.hpp"

namespace tessera {

class Profile {
public:
    // Entries are copies (they outlive the graph): one per node name and shape.
    struct Entry {
        std::string name, op, shape, backend;
        double flops = 0, bytes = 0;  // per run
        int runs = 0;
        double seconds = 0;
    };

    void add(const Tensor& node, std::string_view backend, double seconds);
    void add(const Entry& e);  // merges another profile's entry
    const std::vector<Entry>& entries() const { return entries_; }
    double total_seconds() const;
    // Times are per run (averaged over runs).
    void print(std::ostream& out) const;

private:
    std::vector<Entry> entries_;  // in first-run order
    std::unordered_map<std::string, size_t> index_;  // name + shape
};

}  // namespace tessera
