// Reading GGUF (v2 and v3) files: metadata, tensor table, and tensor data as
// zero-copy views into a read-only mapping. Every size and offset is checked
// before use; malformed input throws tessera::Error naming the file, the
// field and the offending value.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/quant/ggml_type.hpp"
#include "models/gguf/value.hpp"
#include "support/mapped_file.hpp"

namespace tessera::gguf {

inline constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as little-endian uint32
inline constexpr uint32_t kDefaultAlignment = 32;
inline constexpr int kMaxDims = 4;
inline constexpr int kMaxArrayDepth = 8;  // deepest array nesting read or written (an array of arrays is 2)

struct TensorInfo {
    std::string name;
    GgmlTypeTraits type;
    std::vector<uint64_t> ne;       // ne[0] is the fastest-varying dimension
    uint64_t offset = 0;            // relative to the start of the data section
    std::span<const uint8_t> data;  // view into the file's bytes

    uint64_t n_elements() const;
    uint64_t n_rows() const { return ne.empty() ? 0 : n_elements() / ne[0]; }
    std::string shape_string() const;  // "[256, 32000]", ggml order
};

class File {
public:
    // Maps (or copies, see support/mapped_file.hpp) and parses a file on disk.
    static File open(const std::string& path, FileMemory memory = FileMemory::Mapped);
    // Parses bytes owned by the caller (they must outlive the File). `name` is
    // used in error messages.
    static File parse(std::span<const uint8_t> bytes, std::string name);

    const std::string& name() const { return name_; }
    uint32_t version() const { return version_; }
    uint32_t alignment() const { return alignment_; }
    // Header end rounded up to alignment(); may lie past the end of a file without tensors.
    uint64_t data_offset() const { return data_offset_; }
    std::span<const uint8_t> bytes() const { return bytes_; }
    // Whether open() read the file into a huge-page copy (see MappedFile::is_copy).
    bool is_copy() const { return mapping_ && mapping_->is_copy(); }
    // Copies tensors into one huge-page buffer (each 64-byte aligned) and
    // points their data there, once, in a mapped file: those `rank` ranks 0
    // or more, lowest rank first (then in file order), as many as fit
    // (huge_page_copy_fits, each tensor whole) where the buffer can be
    // allocated. Returns the bytes copied (0: none, the tensors left where
    // they were).
    uint64_t copy_tensors_to_huge_pages(const std::function<int(const TensorInfo&)>& rank);
    // The file's bytes held in private memory: the whole file's where it is a
    // copy, else those copy_tensors_to_huge_pages copied.
    uint64_t copied_bytes() const { return is_copy() ? bytes_.size() : tensor_copy_bytes_; }

    const std::vector<KeyValue>& metadata() const { return metadata_; }
    const Value* find(std::string_view key) const;  // nullptr if absent

    // Typed metadata access. The first form throws an Error naming the key
    // when it is absent or of an incompatible type; the second returns the
    // fallback when absent (and still throws on a wrong type).
    uint64_t get_uint(std::string_view key) const;
    uint64_t get_uint(std::string_view key, uint64_t fallback) const;
    double get_float(std::string_view key) const;
    double get_float(std::string_view key, double fallback) const;
    std::string get_string(std::string_view key) const;
    std::string get_string(std::string_view key, std::string_view fallback) const;
    bool get_bool(std::string_view key, bool fallback) const;
    const Array& get_array(std::string_view key) const;

    const std::vector<TensorInfo>& tensors() const { return tensors_; }
    const TensorInfo* find_tensor(std::string_view name) const;  // nullptr if absent
    const TensorInfo& tensor(std::string_view name) const;       // Error naming file and tensor if absent

private:
    std::shared_ptr<MappedFile> mapping_;  // null when parsing caller-owned bytes
    std::string name_;
    std::span<const uint8_t> bytes_;
    uint32_t version_ = 0;
    uint32_t alignment_ = kDefaultAlignment;
    uint64_t data_offset_ = 0;
    std::vector<KeyValue> metadata_;
    std::vector<TensorInfo> tensors_;
    std::shared_ptr<HugePageBuffer> tensor_copy_;  // copy_tensors_to_huge_pages
    uint64_t tensor_copy_bytes_ = 0;

    friend class Parser;
    friend class Writer;  // copy_of keeps the mapping alive until write()
};

}  // namespace tessera::gguf
