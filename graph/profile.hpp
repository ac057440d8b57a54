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
    struct Entry {
        const Tensor* node;
        std::string backend;
        int runs = 0;
        double seconds = 0;
    };

    void add(const Tensor& node, std::string_view backend, double seconds);
    const std::vector<Entry>& entries() const { return entries_; }
    double total_seconds() const;
    // Times are per run (averaged over runs).
    void print(std::ostream& out) const;

private:
    std::vector<Entry> entries_;  // in first-run order
    std::unordered_map<const Tensor*, size_t> index_;
};

}  // namespace tessera
