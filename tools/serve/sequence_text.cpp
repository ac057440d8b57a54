#include "tools/serve/sequence_text.hpp"

#include <algorithm>

namespace tessera::serve {

SequenceText::SequenceText(const tokenizer::Tokenizer& tokenizer, std::span<const int32_t> context,
                           std::vector<std::string> stops)
    : decoder_(tokenizer), stops_(std::move(stops)) {
    std::erase(stops_, std::string());
    for (const int32_t t : context) decoder_.push(t);
}

std::string SequenceText::push(int32_t id) {
    if (stopped_) return {};
    pending_ += decoder_.push(id);
    return release();
}

std::string SequenceText::release() {
    size_t first = std::string::npos;
    for (const std::string& s : stops_) first = std::min(first, pending_.find(s));
    if (first != std::string::npos) {
        stopped_ = true;
        std::string out = pending_.substr(0, first);
        pending_.clear();
        return out;
    }
    // The longest end of pending_ that starts some stop string stays.
    size_t hold = 0;
    for (const std::string& s : stops_)
        for (size_t n = std::min(s.size() - 1, pending_.size()); n > hold; --n)
            if (pending_.compare(pending_.size() - n, n, s, 0, n) == 0) {
                hold = n;
                break;
            }
    std::string out = pending_.substr(0, pending_.size() - hold);
    pending_.erase(0, pending_.size() - hold);
    return out;
}

std::string SequenceText::finish() {
    if (stopped_) return {};
    pending_ += decoder_.finish();
    std::string out = release();
    if (stopped_) return out;
    out += pending_;  // a partial stop string at the very end is text
    pending_.clear();
    return out;
}

}  // namespace tessera::serve
