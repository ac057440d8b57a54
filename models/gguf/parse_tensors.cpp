// The tensor table of a GGUF file and the placement of tensor data.
#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "models/gguf/layout_math.hpp"
#include "models/gguf/parser.hpp"
#include "models/gguf/printable.hpp"

namespace tessera::gguf {

namespace {

// Only for ranges known to lie inside the file (no overflow).
std::string byte_range(uint64_t begin, uint64_t size) {
    return "[" + std::to_string(begin) + ", " + std::to_string(begin + size) + ")";
}

}  // namespace

void Parser::read_tensor_infos(uint64_t tensor_count) {
    auto& tensors = file_.tensors_;
    tensors.reserve(size_t(tensor_count));
    std::unordered_map<std::string_view, uint64_t> first_index;
    for (uint64_t i = 0; i < tensor_count; ++i) {
        where_ = "tensor #" + std::to_string(i);
        const std::string_view name = read_string("name");
        where_ += " " + quoted(name);
        if (auto [it, inserted] = first_index.emplace(name, i); !inserted)
            fail("name", "duplicate tensor name " + quoted(name) + " (first used by tensor #" +
                             std::to_string(it->second) + ")");
        TensorInfo info = read_tensor_info();
        info.name = std::string(name);
        tensors.push_back(std::move(info));
    }
}

TensorInfo Parser::read_tensor_info() {
    TensorInfo info{.name = {}, .type = ggml_type_traits(GgmlType::F32), .ne = {}, .offset = 0, .data = {}};
    const auto n_dims = read<uint32_t>("n_dims");
    if (n_dims < 1 || n_dims > uint32_t(kMaxDims))
        fail("n_dims", std::to_string(n_dims) + " is outside 1.." + std::to_string(kMaxDims));
    info.ne.resize(n_dims);
    for (uint32_t d = 0; d < n_dims; ++d) {
        const std::string field = "ne[" + std::to_string(d) + "]";
        const auto dim = read<uint64_t>(field);
        if (dim == 0) fail(field, "dimension is 0");
        if (dim > uint64_t(std::numeric_limits<int64_t>::max()))
            fail(field, "dimension " + std::to_string(dim) + " exceeds the int64 range");
        info.ne[d] = dim;
    }
    if (!element_count(info.ne))
        fail("shape", shape_string(info.ne) + ": element count overflows int64");

    const auto type_id = read<uint32_t>("type");
    const auto type = ggml_type_traits(type_id);
    if (!type) fail("type", "unknown ggml type id " + std::to_string(type_id));
    info.type = *type;
    if (info.ne[0] % type->block_elems != 0)
        fail("ne[0]", std::to_string(info.ne[0]) + " is not a multiple of the " + std::string(type->name) +
                          " block size " + std::to_string(type->block_elems));
    if (!tensor_byte_size(*type, info.ne))
        fail("shape", shape_string(info.ne) + " of " + std::string(type->name) + ": byte size overflows");

    info.offset = read<uint64_t>("offset");
    if (info.offset % file_.alignment_ != 0)
        fail("offset", std::to_string(info.offset) + " is not a multiple of the alignment " +
                           std::to_string(file_.alignment_));
    return info;
}

void Parser::place_tensor_data() {
    array_path_.clear();
    const uint64_t header_end = pos_;
    // header_end <= file size < 2^63 and alignment <= 2^31, so this cannot overflow.
    file_.data_offset_ = *align_up(header_end, file_.alignment_);
    auto& tensors = file_.tensors_;
    if (tensors.empty()) return;  // writers put no padding after a tensor-less header

    where_ = "data section";
    if (file_.data_offset_ > bytes_.size())
        fail("start", "offset " + std::to_string(file_.data_offset_) + " (header end " + std::to_string(header_end) +
                          " aligned to " + std::to_string(file_.alignment_) + ") is beyond the end of the file (" +
                          std::to_string(bytes_.size()) + " bytes)");
    const uint64_t data_size = bytes_.size() - file_.data_offset_;

    std::vector<uint64_t> sizes(tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i) {
        TensorInfo& t = tensors[i];
        where_ = "tensor #" + std::to_string(i) + " " + quoted(t.name);
        sizes[i] = *tensor_byte_size(t.type, t.ne);
        if (t.offset > data_size || sizes[i] > data_size - t.offset)
            fail("data", std::to_string(sizes[i]) + " bytes at offset " + std::to_string(t.offset) +
                             " of the data section lie outside the file (the data section has " +
                             std::to_string(data_size) + " bytes from file offset " +
                             std::to_string(file_.data_offset_) + ")");
        t.data = bytes_.subspan(size_t(file_.data_offset_ + t.offset), size_t(sizes[i]));
    }

    std::vector<size_t> by_offset(tensors.size());
    std::iota(by_offset.begin(), by_offset.end(), size_t{0});
    std::sort(by_offset.begin(), by_offset.end(),
              [&](size_t a, size_t b) { return tensors[a].offset < tensors[b].offset; });
    for (size_t k = 1; k < by_offset.size(); ++k) {
        const size_t prev = by_offset[k - 1], cur = by_offset[k];
        if (tensors[prev].offset + sizes[prev] > tensors[cur].offset) {
            where_ = "tensor #" + std::to_string(cur) + " " + quoted(tensors[cur].name);
            fail("data", "bytes " + byte_range(tensors[cur].offset, sizes[cur]) + " overlap tensor #" +
                             std::to_string(prev) + " " + quoted(tensors[prev].name) + " at " +
                             byte_range(tensors[prev].offset, sizes[prev]));
        }
    }
}

}  // namespace tessera::gguf
