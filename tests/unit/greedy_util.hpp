// What the batched-decoding tests share: deterministic prompts, and a
// sequence's greedy continuation by a Session of its own (the reference a
// sequence decoded beside others must equal).
#pragma once

#include <string>
#include <vector>

#include "logit_compare.hpp"
#include "models/model.hpp"
#include "models/session.hpp"

namespace tessera::test {

// n token ids in [3, 253): valid in every test vocabulary.
inline std::vector<int32_t> prompt_ids(size_t n, uint32_t seed) {
    std::vector<int32_t> t(n);
    for (size_t i = 0; i < n; ++i) t[i] = int32_t(3 + (i * 7919 + seed * 104729) % 250);
    return t;
}

// n greedy tokens after `p`; the session's notice (where nodes ran) in *notice.
inline std::vector<int32_t> greedy_alone(const model::Model& m, const model::SessionOptions& o,
                                         const std::vector<int32_t>& p, int n, std::string* notice = nullptr) {
    model::Session s(m, o);
    std::vector<float> logits = s.eval(p);
    if (notice) *notice = s.take_notice();
    std::vector<int32_t> out;
    for (int i = 0; i < n; ++i) {
        const int32_t t = int32_t(argmax(logits));
        out.push_back(t);
        logits = s.eval({&t, 1});
    }
    return out;
}

}  // namespace tessera::test
