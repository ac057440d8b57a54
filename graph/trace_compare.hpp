// Node-by-node comparison of two trace directories (graph/trace.hpp), in the
// first one's order: where do two backends, builds or implementations diverge?
#pragma once

#include <string>
#include <vector>

namespace tessera {

struct NodeDifference {
    std::string name, op;
    std::vector<int64_t> shape;
    bool in_both = true;        // false: the second trace lacks the node
    bool same_shape = true;
    double nmse = 0;            // sum((a-b)^2) / sum(a^2), a from the first trace
    double max_abs = 0;
    bool diverged = false;      // !in_both, !same_shape or nmse > tolerance
};

struct TraceComparison {
    std::vector<NodeDifference> nodes;  // every node of the first trace, in order
    int first_divergence = -1;          // index into nodes, -1 when none
};

TraceComparison compare_traces(const std::string& dir_a, const std::string& dir_b, double nmse_tolerance);

}  // namespace tessera
