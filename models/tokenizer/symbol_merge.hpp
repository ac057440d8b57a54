// The merge loop both tokenizers share: the text split into UTF-8 characters
// (a doubly linked list of symbols), every adjacent pair that may merge queued
// by priority, the best pair merged first (ties: the leftmost), its new
// neighbours queued, until no pair is left.
#pragma once

#include <optional>
#include <queue>
#include <string_view>
#include <vector>

#include "models/tokenizer/unicode.hpp"

namespace tessera::tokenizer {

// priority(start, left_length, right_length) -> std::optional<P>: whether the
// symbols text[start, start + left_length) and the one after it may merge, and
// how urgently (higher first). Returns the final symbols, in order.
template <class P, class PriorityOf>
std::vector<std::string_view> merge_symbols(std::string_view text, PriorityOf&& priority) {
    struct Symbol {
        size_t start;
        size_t length;  // 0 once merged into its left neighbour
        int prev, next;
    };
    struct Pair {
        P priority;
        int left;       // index of the left symbol
        size_t length;  // bytes of both symbols when queued; a mismatch marks a stale entry
        bool operator<(const Pair& o) const {  // the queue's top is the greatest
            return priority < o.priority || (!(o.priority < priority) && left > o.left);
        }
    };

    std::vector<Symbol> symbols;
    for (size_t pos = 0; pos < text.size();) {
        const size_t len = decode_utf8(text, pos).length;
        const int index = int(symbols.size());
        symbols.push_back({pos, len, index - 1, index + 1});
        pos += len;
    }
    if (symbols.empty()) return {};
    symbols.back().next = -1;

    std::priority_queue<Pair> queue;
    const auto try_pair = [&](int left) {
        if (left < 0 || symbols[size_t(left)].next < 0) return;
        const Symbol& l = symbols[size_t(left)];
        const Symbol& r = symbols[size_t(l.next)];
        if (const std::optional<P> p = priority(l.start, l.length, r.length))
            queue.push({*p, left, l.length + r.length});
    };
    for (int i = 0; i + 1 < int(symbols.size()); ++i) try_pair(i);

    while (!queue.empty()) {
        const Pair top = queue.top();
        queue.pop();
        Symbol& left = symbols[size_t(top.left)];
        if (left.length == 0 || left.next < 0) continue;
        Symbol& right = symbols[size_t(left.next)];
        if (left.length + right.length != top.length) continue;  // a neighbour changed since it was queued
        left.length = top.length;
        right.length = 0;
        left.next = right.next;
        if (left.next >= 0) symbols[size_t(left.next)].prev = top.left;
        try_pair(left.prev);
        try_pair(top.left);
    }

    std::vector<std::string_view> out;
    for (int i = 0; i >= 0; i = symbols[size_t(i)].next) out.push_back(text.substr(symbols[size_t(i)].start, symbols[size_t(i)].length));
    return out;
}

}  // namespace tessera::tokenizer
