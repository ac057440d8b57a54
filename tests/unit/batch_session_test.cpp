// Several sequences decoded together (models/batch_session.hpp): each one's
// greedy tokens must be those it produces alone, whatever its neighbours do:
// sequences that start, stop and restart at different steps, idle ones,
// prompts of different lengths, a sliding-window model whose rings wrap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "conformance.hpp"
#include "greedy_util.hpp"
#include "logit_compare.hpp"
#include "models/batch_session.hpp"
#include "models/model.hpp"
#include "models/session.hpp"

namespace tessera::model {
namespace {

namespace fs = std::filesystem;

using test::greedy_alone;
using test::prompt_ids;

struct Stream {
    std::vector<int32_t> prompt;
    int start_step;  // the decode step before which its prompt goes in
    int length;      // tokens it generates
};

// Every stream's greedy tokens, served together in a BatchSession of
// `slots`: prompts go in at their start step, then each active stream gets
// one token per step; a finished stream's slot is reused by a later one.
std::vector<std::vector<int32_t>> together(const Model& m, const SessionOptions& o, const std::vector<Stream>& streams,
                                           int64_t slots) {
    BatchSession batch(m, o, slots);
    std::vector<std::vector<int32_t>> out(streams.size());
    std::vector<int64_t> slot_of(streams.size(), -1);
    std::vector<std::vector<float>> logits(streams.size());
    std::vector<bool> slot_busy(size_t(slots), false);
    for (int step = 0;; ++step) {
        bool any = false;
        for (size_t i = 0; i < streams.size(); ++i) {
            if (streams[i].start_step != step) continue;
            const auto free = std::find(slot_busy.begin(), slot_busy.end(), false);
            EXPECT_NE(free, slot_busy.end()) << "the test asks for more streams at once than slots";
            slot_of[i] = free - slot_busy.begin();
            *free = true;
            batch.truncate(slot_of[i], 0);
            logits[i] = batch.eval(slot_of[i], streams[i].prompt);
        }
        std::vector<BatchSession::Step> steps;
        std::vector<size_t> who;
        for (size_t i = 0; i < streams.size(); ++i) {
            if (slot_of[i] < 0 || int(out[i].size()) == streams[i].length) continue;
            const int32_t t = int32_t(test::argmax(logits[i]));
            out[i].push_back(t);
            if (int(out[i].size()) == streams[i].length) {
                slot_busy[size_t(slot_of[i])] = false;
                continue;
            }
            steps.push_back({slot_of[i], t});
            who.push_back(i);
        }
        for (size_t i = 0; i < streams.size(); ++i) any |= streams[i].start_step > step || int(out[i].size()) < streams[i].length;
        if (!steps.empty()) {
            const auto results = batch.decode(steps);
            for (size_t k = 0; k < who.size(); ++k) logits[who[k]] = results[k];
        }
        if (!any) break;
    }
    return out;
}

void expect_same_as_alone(const fs::path& model_path, int64_t batch) {
    const Model m = Model::open(model_path.string());
    const SessionOptions o{.n_ctx = 512, .kv_type = GgmlType::F32, .batch = batch};
    const std::vector<Stream> streams = {
        {prompt_ids(5, 1), 0, 40},  {prompt_ids(33, 2), 0, 12}, {prompt_ids(1, 3), 3, 30},
        {prompt_ids(70, 4), 7, 20}, {prompt_ids(9, 5), 13, 25},  // into the slot stream 1 left
    };
    const auto got = together(m, o, streams, 4);
    for (size_t i = 0; i < streams.size(); ++i)
        EXPECT_EQ(got[i], greedy_alone(m, o, streams[i].prompt, streams[i].length)) << "stream " << i;
}

TEST(BatchSession, EachSequenceDecodesAsItWouldAlone) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    expect_same_as_alone(conformance / "models" / "stories260K-F32.gguf", 512);
    expect_same_as_alone(conformance / "models" / "tiny-gqa-Q4_K_M.gguf", 512);
}

// Window 16 over rings of 256 rows (batches of 8): the streams wrap them.
TEST(BatchSession, SlidingWindowSequencesDecodeAsTheyWouldAlone) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    const Model m = Model::open((conformance / "arch" / "models" / "tiny-gemma3-F32.gguf").string());
    const SessionOptions o{.n_ctx = 400, .kv_type = GgmlType::F32, .batch = 8};
    const std::vector<Stream> streams = {{prompt_ids(250, 1), 0, 60}, {prompt_ids(20, 2), 2, 50}};
    const auto got = together(m, o, streams, 2);
    for (size_t i = 0; i < streams.size(); ++i)
        EXPECT_EQ(got[i], greedy_alone(m, o, streams[i].prompt, streams[i].length)) << "stream " << i;
}

TEST(BatchSession, BadRequestsAreRefusedByName) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    const Model m = Model::open((conformance / "models" / "stories260K-F32.gguf").string());
    BatchSession batch(m, {.n_ctx = 16}, 2);
    const std::vector<int32_t> p = prompt_ids(16, 1);
    EXPECT_THROW(batch.eval(2, p), Error);
    batch.eval(0, p);
    const BatchSession::Step full{0, 5};
    EXPECT_THROW(batch.decode({&full, 1}), Error);  // its context is full
    const BatchSession::Step twice[] = {{1, 5}, {1, 6}};
    EXPECT_THROW(batch.decode(twice), Error);
    const BatchSession::Step beyond{1, 1 << 20};
    EXPECT_THROW(batch.decode({&beyond, 1}), Error);
}

// --backend auto whose device cannot be had falls back to the CPU, as a
// Session does, and says so once (a server prints it): not silently.
TEST(BatchSession, AutoWithoutItsDeviceRunsOnTheCpuAndSaysSo) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    const Model m = Model::open((conformance / "models" / "stories260K-F32.gguf").string());
    BatchSession batch(m, {.n_ctx = 16, .backend = BackendKind::Auto, .device = 99}, 2);
    EXPECT_EQ(batch.backend().name(), "cpu");
    const std::string notice = batch.take_notice();
    EXPECT_NE(notice.find("Vulkan unavailable"), std::string::npos) << notice;
    EXPECT_NE(notice.find("running on the CPU"), std::string::npos) << notice;
    EXPECT_EQ(batch.take_notice(), "");
    BatchSession asked(m, {.n_ctx = 16}, 2);  // the CPU as asked: nothing to say
    EXPECT_EQ(asked.take_notice(), "");
}

}  // namespace
}  // namespace tessera::model
