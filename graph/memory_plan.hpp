// Offsets for the tensors of a schedule in one arena, reusing memory once a
// tensor's last reader has run (greedy first fit over live intervals).
#pragma once

#include <cstddef>
#include <vector>

namespace tessera {

struct LiveInterval {
    size_t bytes;
    int first;  // schedule step that writes it (-1: before the run, an input)
    int last;   // last step that reads it (INT_MAX: kept to the end)
};

struct MemoryPlan {
    std::vector<size_t> offsets;  // one per interval
    size_t peak_bytes = 0;        // arena size
};

// Intervals sharing a step never overlap: a step's output does not alias its inputs.
MemoryPlan plan_memory(const std::vector<LiveInterval>& intervals, size_t alignment = 64);

}  // namespace tessera
