// The arithmetic of splitting a model's layers between devices (--devices,
// --tensor-split): each device holds one contiguous range of layers with
// their KV cache; the first device also holds what the pass computes before
// the first layer (the token embedding), the last what it computes after the
// last (the output norm and matrix). Which tensors those are, and where the
// ranges' nodes run, is models/device_split.hpp's business.
#pragma once

#include <string>
#include <vector>

namespace tessera::model {

struct SplitRequest {
    std::vector<double> layer_bytes;  // each layer's weights and KV cache
    double first_bytes = 0;           // the first device's besides its layers
    double last_bytes = 0;            // the last device's besides its layers
    double reserve_bytes = 0;         // every device's besides those (its activations)
    std::vector<int> devices;         // the device indices, for messages
    std::vector<double> free_bytes;   // each device's free memory
    std::vector<double> shares;       // --tensor-split; empty: in proportion to the free memory
};

// Device i holds layers [first[i], first[i + 1]); first has one more entry
// than devices, the last being the layer count. Layers go to devices in
// proportion to the shares (by bytes, not by count); without shares, to
// what each device's free memory leaves for layers, and where rounding
// makes a device overflow, each device in turn takes as many as it holds.
// Throws an Error naming the problem: shares that are not one positive
// number per device, a device left without layers, a device given more than
// its free memory by --tensor-split, or a model that fits no split.
std::vector<int> split_layers(const SplitRequest& request);

// "0,1" for a message.
std::string device_list(const std::vector<int>& devices);

}  // namespace tessera::model
