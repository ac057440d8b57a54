#include "graph/memory_plan.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>

namespace tessera {

namespace {

// Free ranges of the arena [offset, offset + size), coalesced.
class FreeList {
public:
    size_t take(size_t bytes, size_t& arena_end) {
        for (auto it = free_.begin(); it != free_.end(); ++it) {
            if (it->second < bytes) continue;
            const size_t offset = it->first, size = it->second;
            free_.erase(it);
            if (size > bytes) free_.emplace(offset + bytes, size - bytes);
            return offset;
        }
        // Grow the arena; a free range touching its end is extended instead.
        size_t offset = arena_end;
        if (!free_.empty()) {
            auto last = std::prev(free_.end());
            if (last->first + last->second == arena_end) {
                offset = last->first;
                free_.erase(last);
            }
        }
        arena_end = offset + bytes;
        return offset;
    }

    void give_back(size_t offset, size_t bytes) {
        auto [it, inserted] = free_.emplace(offset, bytes);
        if (auto next = std::next(it); next != free_.end() && it->first + it->second == next->first) {
            it->second += next->second;
            free_.erase(next);
        }
        if (it != free_.begin()) {
            auto prev = std::prev(it);
            if (prev->first + prev->second == it->first) {
                prev->second += it->second;
                free_.erase(it);
            }
        }
    }

private:
    std::map<size_t, size_t> free_;  // offset -> size
};

}  // namespace

MemoryPlan plan_memory(const std::vector<LiveInterval>& intervals, size_t alignment) {
    MemoryPlan plan;
    plan.offsets.assign(intervals.size(), 0);
    std::vector<size_t> by_first(intervals.size()), by_last(intervals.size());
    std::iota(by_first.begin(), by_first.end(), 0);
    std::iota(by_last.begin(), by_last.end(), 0);
    std::stable_sort(by_first.begin(), by_first.end(),
                     [&](size_t a, size_t b) { return intervals[a].first < intervals[b].first; });
    std::stable_sort(by_last.begin(), by_last.end(),
                     [&](size_t a, size_t b) { return intervals[a].last < intervals[b].last; });

    FreeList free;
    size_t arena_end = 0;
    auto bytes_of = [&](size_t i) { return (intervals[i].bytes + alignment - 1) / alignment * alignment; };
    size_t next_free = 0;
    for (size_t a = 0; a < by_first.size(); ++a) {
        const size_t i = by_first[a];
        // Release everything whose last reader ran before this step.
        while (next_free < by_last.size() && intervals[by_last[next_free]].last < intervals[i].first) {
            const size_t j = by_last[next_free++];  // first <= last < this first: already placed
            free.give_back(plan.offsets[j], bytes_of(j));
        }
        plan.offsets[i] = free.take(bytes_of(i), arena_end);
    }
    plan.peak_bytes = arena_end;
    return plan;
}

}  // namespace tessera
