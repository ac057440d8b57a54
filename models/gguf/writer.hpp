// Writing GGUF v3 files. Tensor data is produced one tensor at a time by a
// callback, so a multi-GB model never has to be in memory at once.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kernels/quant/ggml_type.hpp"
#include "models/gguf/value.hpp"

namespace tessera::gguf {

class File;

class Writer {
public:
    // Fills exactly the tensor's byte size at dst.
    using Fill = std::function<void(std::span<uint8_t> dst)>;

    void set_alignment(uint32_t alignment);  // also written as general.alignment when != 32
    void add_kv(std::string key, Value value);
    void add_tensor(std::string name, GgmlType type, std::vector<uint64_t> ne, Fill fill);
    // Convenience: copies bytes that outlive write().
    void add_tensor(std::string name, GgmlType type, std::vector<uint64_t> ne, std::span<const uint8_t> bytes);

    // Metadata and tensors of `file` (in file order), tensor bytes copied from it
    // during write(). A File::open mapping is kept alive by the Writer; the
    // bytes given to File::parse must outlive write().
    static Writer copy_of(const File& file);

    // Writes the file as support/output_file.hpp describes; `progress(done_bytes,
    // total_bytes)` is called after each tensor.
    void write(const std::string& path,
               const std::function<void(uint64_t, uint64_t)>& progress = nullptr) const;

private:
    struct PendingTensor {
        std::string name;
        GgmlType type;
        std::vector<uint64_t> ne;
        Fill fill;
    };
    uint32_t alignment_ = 32;
    std::vector<KeyValue> metadata_;
    std::vector<PendingTensor> tensors_;
};

}  // namespace tessera::gguf
