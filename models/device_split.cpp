#include "models/device_split.hpp"

#include <algorithm>
#include <set>

#include "models/layer_split.hpp"
#include "support/error.hpp"

namespace tessera::model {

namespace {

// The weights and caches each part of the pass reads: [0] before the first
// layer, [1 + l] layer l, [n_layer + 1] after the last.
std::vector<std::set<const Tensor*>> leaves_by_part(const DecoderPass& pass) {
    std::vector<std::set<const Tensor*>> parts(pass.block_first_ids.size() + 1);
    for (const Tensor& t : pass.graph.tensors()) {
        if (t.is_leaf() || t.is_view()) continue;
        for (const Tensor* s : t.src)
            if (const Tensor* root = s->storage_root(); root->leaf == LeafKind::Weight || root->leaf == LeafKind::External)
                parts[size_t(pass.part_of(t) + 1)].insert(root);
    }
    return parts;
}

double bytes_of(const std::set<const Tensor*>& leaves) {
    double bytes = 0;
    for (const Tensor* t : leaves) bytes += double(t->nbytes());
    return bytes;
}

}  // namespace

DeviceSplit::DeviceSplit(const DecoderPass& sample, const std::vector<std::shared_ptr<Backend>>& backends,
                         const std::vector<int>& devices, const std::vector<double>& shares, double reserve_bytes)
    : backends_(backends), devices_(devices) {
    if (backends_.size() <= devices_.size() || !backends_.back()->host_addressable())
        throw Error("a split over devices " + device_list(devices_) + " needs a backend for each and the host's after them");
    const auto parts = leaves_by_part(sample);
    SplitRequest request{.first_bytes = bytes_of(parts.front()),
                         .last_bytes = bytes_of(parts.back()),
                         .reserve_bytes = reserve_bytes,
                         .devices = devices_,
                         .shares = shares};
    for (size_t p = 1; p + 1 < parts.size(); ++p) request.layer_bytes.push_back(bytes_of(parts[p]));
    for (size_t i = 0; i < devices_.size(); ++i) {
        const auto free = backends_[i]->free_memory();
        if (!free) throw Error("backend " + std::string(backends_[i]->name()) + " of device " + std::to_string(devices_[i]) + " is no device");
        request.free_bytes.push_back(double(*free));
    }
    first_ = split_layers(request);
}

int DeviceSplit::device_of_part(int part) const {
    const int n_layer = first_.back();
    if (part < 0) return 0;
    if (part >= n_layer) return int(devices_.size()) - 1;
    return int(std::upper_bound(first_.begin(), first_.end(), part) - first_.begin()) - 1;
}

std::function<int(const Tensor&)> DeviceSplit::placement(const DecoderPass& pass) const {
    return [this, &pass](const Tensor& t) { return device_of_part(pass.part_of(t)); };
}

void DeviceSplit::preload(const DecoderPass& sample) {
    const auto parts = leaves_by_part(sample);
    for (size_t p = 0; p < parts.size(); ++p)
        for (const Tensor* t : parts[p])
            if (t->leaf == LeafKind::Weight)
                weight_copies_.push_back(backends_[size_t(device_of_part(int(p) - 1))]->preload(*t));
}

std::string DeviceSplit::describe() const {
    std::string s = "layers";
    for (size_t i = 0; i < devices_.size(); ++i)
        s += std::string(i == 0 ? " " : ", ") + std::to_string(first_[i]) + "-" + std::to_string(first_[i + 1] - 1) +
             " on device " + std::to_string(devices_[i]) + " (" + backends_[i]->device_name() + ")";
    return s + "; the token embedding on the first, the output on the last";
}

}  // namespace tessera::model
