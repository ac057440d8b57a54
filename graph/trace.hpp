// Dumps node outputs for comparison between builds, backends or llama.cpp.
// A trace directory holds one headerless float32 file per node (values in
// ne[0]-fastest order, converted to F32 whatever the node's type) and
// index.json listing the nodes in the order they ran:
//   [{"name": "blk.0.attn_norm", "op": "rms_norm", "type": "F32",
//     "shape": [64, 7], "file": "0003.blk.0.attn_norm.f32"}, ...]
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/tensor.hpp"

namespace tessera {

class Backend;

class TraceWriter {
public:
    explicit TraceWriter(std::string dir);  // creates dir
    // The first dump of a node is kept (the first pass). `storage` is the
    // backend whose memory holds the node's data.
    void write(const Tensor& node, const Backend& storage);
    void finish();                          // writes index.json

private:
    std::string dir_;
    nlohmann::json index_ = nlohmann::json::array();
    std::vector<std::string> written_;
};

// A node's values as F32, dense, in ne[0]-fastest order.
std::vector<float> values_as_f32(const Tensor& t);

}  // namespace tessera
