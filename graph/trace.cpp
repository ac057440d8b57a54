#include "graph/trace.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "graph/backend.hpp"
#include "graph/op_def.hpp"
#include "graph/row_loop.hpp"
#include "kernels/quant/registry.hpp"
#include "support/error.hpp"
#include "support/output_file.hpp"

namespace tessera {

std::vector<float> values_as_f32(const Tensor& t) {
    std::vector<float> out(size_t(t.nelements()));
    const int64_t n = t.ne[0];
    const bool is_i32 = t.type == GgmlType::I32;
    const QuantTypeEntry* type = is_i32 ? nullptr : &require_quant_type(t.type, t.name);
    const bool dense_rows = t.nb[0] == ggml_type_traits(t.type).block_bytes;
    for_each_row(t, [&](RowIndex ri) {
        float* dst = out.data() + size_t(n) * size_t(ri.i1 + t.ne[1] * (ri.i2 + t.ne[2] * ri.i3));
        if (is_i32) {
            for (int64_t i = 0; i < n; ++i) dst[i] = float(element<int32_t>(t, i, ri));
        } else if (dense_rows) {
            type->dequantize_row(row_ptr(t, ri), dst, n);
        } else {  // permuted view of a plain type: one value at a time
            for (int64_t i = 0; i < n; ++i) type->dequantize_row(row_ptr(t, ri) + i * t.nb[0], dst + i, 1);
        }
    });
    return out;
}

TraceWriter::TraceWriter(std::string dir) : dir_(std::move(dir)) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) throw Error("cannot create trace directory '" + dir_ + "': " + ec.message());
}

void TraceWriter::write(const Tensor& node, const Backend& storage) {
    std::string safe = node.name;
    std::replace_if(safe.begin(), safe.end(), [](char c) { return c == '/' || c == ' '; }, '_');
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%04zu.", written_.size());
    const bool seen = std::find(written_.begin(), written_.end(), node.name) != written_.end();
    if (seen) return;  // a later run overwrites nothing: the first pass is the one compared
    const std::string file = prefix + safe + ".f32";
    std::vector<float> values;
    if (storage.host_addressable()) {
        values = values_as_f32(node);
    } else {  // a host copy of the bytes the node spans
        std::vector<char> bytes(node.nbytes());
        storage.copy_to_host(node.data, bytes.size(), bytes.data());
        Tensor host = node;
        host.data = bytes.data();
        values = values_as_f32(host);
    }
    OutputFile out(dir_ + "/" + file);
    out.write(std::span<const float>(values));
    out.commit();
    written_.push_back(node.name);
    std::vector<int64_t> shape(node.ne.begin(), node.ne.begin() + node.n_dims());
    index_.push_back({{"name", node.name},
                      {"op", node.is_leaf() ? "leaf" : std::string(node.op->name)},
                      {"type", std::string(ggml_type_traits(node.type).name)},
                      {"shape", shape},
                      {"file", file}});
}

void TraceWriter::finish() {
    const std::string text = index_.dump(1) + "\n";
    OutputFile out(dir_ + "/index.json");
    out.write(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    out.commit();
}

}  // namespace tessera
