// The arithmetic of splitting layers between devices (models/layer_split.hpp):
// ranges in proportion to free memory or to --tensor-split, by bytes, and the
// errors that name a split that cannot be.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/layer_split.hpp"
#include "support/error.hpp"

namespace tessera::model {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

SplitRequest uniform(int n_layer, std::vector<double> free_mib, std::vector<double> shares = {}) {
    SplitRequest r{.layer_bytes = std::vector<double>(size_t(n_layer), 100 * kMiB), .shares = std::move(shares)};
    for (size_t i = 0; i < free_mib.size(); ++i) {
        r.devices.push_back(int(i));
        r.free_bytes.push_back(free_mib[i] * kMiB);
    }
    return r;
}

// The message of the Error split_layers throws, or "" when it splits.
std::string error_of(const SplitRequest& r) {
    try {
        split_layers(r);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(LayerSplit, FollowsFreeMemory) {
    EXPECT_EQ(split_layers(uniform(80, {50000, 50000})), (std::vector<int>{0, 40, 80}));
    EXPECT_EQ(split_layers(uniform(80, {60000, 20000})), (std::vector<int>{0, 60, 80}));
    EXPECT_EQ(split_layers(uniform(9, {10000, 10000, 10000})), (std::vector<int>{0, 3, 6, 9}));
}

TEST(LayerSplit, WhatTheEndsHoldLeavesThemFewerLayers) {
    // Device 0 keeps 2000 MiB for the embedding: its room for layers is 3000
    // MiB against device 1's 5000, so it takes 3/8 of the 16 layers.
    SplitRequest r = uniform(16, {5000, 5000});
    r.first_bytes = 2000 * kMiB;
    EXPECT_EQ(split_layers(r), (std::vector<int>{0, 6, 16}));
    r.first_bytes = 0;
    r.last_bytes = 2000 * kMiB;
    EXPECT_EQ(split_layers(r), (std::vector<int>{0, 10, 16}));
}

TEST(LayerSplit, TensorSplitSharesBytesNotLayers) {
    EXPECT_EQ(split_layers(uniform(80, {50000, 50000}, {3, 1})), (std::vector<int>{0, 60, 80}));
    EXPECT_EQ(split_layers(uniform(80, {50000, 50000}, {0.25, 0.75})), (std::vector<int>{0, 20, 80}));
    // Half the bytes are in the two large layers at the front.
    SplitRequest r = uniform(10, {50000, 50000}, {1, 1});
    r.layer_bytes[0] = r.layer_bytes[1] = 400 * kMiB;
    EXPECT_EQ(split_layers(r), (std::vector<int>{0, 2, 10}));
}

TEST(LayerSplit, RoundingThatOverflowsADeviceFallsBackToFilling) {
    // In proportion, device 0 would take 5 of 10 layers (500 MiB), more than
    // its 495 MiB; filled in turn, it takes 4 and device 1 the other 6.
    const SplitRequest r = uniform(10, {495, 600});
    EXPECT_EQ(split_layers(r), (std::vector<int>{0, 4, 10}));
}

TEST(LayerSplit, ErrorsNameTheProblem) {
    EXPECT_NE(error_of(uniform(8, {1000, 1000}, {1, 2, 3})).find("--tensor-split 1,2,3 gives 3 shares for 2 devices"),
              std::string::npos);
    EXPECT_NE(error_of(uniform(8, {1000, 1000}, {1, 0})).find("the share of device 1 is not a positive number"),
              std::string::npos);
    EXPECT_NE(error_of(uniform(4, {1000, 1000}, {100, 1})).find("--tensor-split 100,1 leaves device 1 no layers"),
              std::string::npos);
    EXPECT_NE(error_of(uniform(2, {1000, 1000, 1000})).find("2 layers cannot be split over 3 devices"),
              std::string::npos);
    EXPECT_NE(error_of(uniform(8, {1000, 200}, {1, 1})).find("gives device 1 layers 4-7: 400 MiB, more than its 200 MiB free"),
              std::string::npos);
    const std::string none = error_of(uniform(80, {4000, 3000}));
    EXPECT_NE(none.find("fits no split of its 80 layers over devices 0,1: it needs 8000 MiB"), std::string::npos) << none;
    EXPECT_NE(none.find("(0: 4000 MiB, 1: 3000 MiB)"), std::string::npos) << none;
    // Enough memory in all, but no device holds the one large layer.
    SplitRequest big = uniform(4, {1000, 1000});
    big.layer_bytes[2] = 1500 * kMiB;
    EXPECT_NE(error_of(big).find("fits no split"), std::string::npos);
    EXPECT_EQ(error_of(uniform(8, {1000, 1000})), "");
}

}  // namespace
}  // namespace tessera::model
