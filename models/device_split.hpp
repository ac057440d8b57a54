// A model split by layer between device backends (--devices): which layers
// each device holds (models/layer_split.hpp: by free memory or by
// --tensor-split), where a pass's nodes run, which weights each device loads.
// The token embedding sits on the first device and the output norm and
// matrix on the last (docs/multi-gpu.md says why); nodes a device has no
// kernel for run on the host backend after the devices. The executor
// inserts the transfers between devices (graph/executor.hpp).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "graph/backend.hpp"
#include "models/decoder_graph.hpp"

namespace tessera::model {

class DeviceSplit {
public:
    // backends: one per entry of `devices`, in that order (then host
    // backends); `sample`: a pass of the model, whose weights and caches
    // say what each layer holds. reserve_bytes: what each device needs
    // besides weights and caches (a pass's activations). shares: --tensor-split.
    DeviceSplit(const DecoderPass& sample, const std::vector<std::shared_ptr<Backend>>& backends,
                const std::vector<int>& devices, const std::vector<double>& shares, double reserve_bytes);

    // For ExecutorOptions::place: the backend of the device holding the part
    // of `pass` that built a node. `pass` must outlive the executor's planning.
    std::function<int(const Tensor&)> placement(const DecoderPass& pass) const;
    // Copies each weight of `sample` to the devices whose nodes read it;
    // the copies stay while this split lives.
    void preload(const DecoderPass& sample);
    // Device i (of `devices`) holds layers [first_layers()[i], first_layers()[i + 1]).
    const std::vector<int>& first_layers() const { return first_; }
    // "layers 0-10 on Vulkan device 0 (name), 11-21 on device 1 (name)".
    std::string describe() const;

private:
    // The device (index into the backends) of a part of a pass (DecoderPass::part_of).
    int device_of_part(int part) const;

    std::vector<std::shared_ptr<Backend>> backends_;
    std::vector<int> devices_;
    std::vector<int> first_;
    std::vector<std::shared_ptr<void>> weight_copies_;  // Backend::preload's handles
};

}  // namespace tessera::model
