// libFuzzer target for the GGUF reader: any input must either parse into a
// File whose invariants hold or throw tessera::Error; never crash, leak or
// hit undefined behaviour. Inputs that parse are also written back with the
// Writer and re-read, which must give the same metadata and tensors.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "models/gguf/file.hpp"
#include "models/gguf/writer.hpp"
#include "support/error.hpp"

namespace {

using namespace tessera::gguf;

volatile uint64_t g_sink;  // keeps the reads of touch_*() from being optimized away

// Stops the run with a crash report when an invariant of a parsed file is broken.
void check(bool ok) {
    if (!ok) __builtin_trap();
}

uint64_t touch(const Value& value) {
    uint64_t h = value_type_name(value.type()).size();
    if (auto u = value.as_uint()) h += *u;
    if (auto i = value.as_int()) h += uint64_t(*i);
    if (auto d = value.as_double()) h += uint64_t(*d == *d);
    if (auto s = value.as_string()) h += s->size() + (s->empty() ? 0 : uint8_t(s->back()));
    if (auto b = value.as_bool()) h += *b;
    if (auto a = value.as_array())
        for (const Value& item : a->items) {
            check(item.type() == a->elem_type);
            h += touch(item);
        }
    check(value == value);
    return h;
}

uint64_t touch_metadata(const File& file) {
    uint64_t h = 0;
    for (const KeyValue& kv : file.metadata()) {
        check(file.find(kv.key) == &kv.value);
        h += touch(kv.value);
        try {
            h += file.get_uint(kv.key, 0);
        } catch (const tessera::Error&) {
        }
        try {
            h += file.get_string(kv.key, "").size();
        } catch (const tessera::Error&) {
        }
        try {
            h += file.get_bool(kv.key, false);
        } catch (const tessera::Error&) {
        }
    }
    return h;
}

uint64_t touch_tensors(const File& file) {
    const auto all = file.bytes();
    uint64_t h = 0;
    for (const TensorInfo& t : file.tensors()) {
        check(file.find_tensor(t.name) == &t);
        check(!t.ne.empty() && t.ne.size() <= size_t(kMaxDims));
        check(t.ne[0] % t.type.block_elems == 0);
        check(t.offset % file.alignment() == 0);
        check(t.data.size() == t.n_rows() * tessera::row_bytes(t.type, t.ne[0]));
        check(t.data.data() >= all.data() && t.data.data() + t.data.size() <= all.data() + all.size());
        check(t.data.data() == all.data() + file.data_offset() + t.offset);
        h += t.shape_string().size() + t.n_elements();
        for (uint8_t byte : t.data) h += byte;
    }
    return h;
}

// A scratch file for the round trip, removed when the fuzzer exits.
struct ScratchFile {
    std::string path = (std::filesystem::temp_directory_path() /
                        ("gguf_reader_fuzz." + std::to_string(::getpid()) + ".gguf"))
                           .string();
    ~ScratchFile() { ::unlink(path.c_str()); }
};

void check_round_trip(const File& file) {
    static const ScratchFile scratch;
    try {
        Writer::copy_of(file).write(scratch.path);
    } catch (const tessera::Error& e) {
        // I/O trouble is the machine's; the writer refusing what the reader accepted is a bug.
        check(!std::string_view(e.what()).starts_with("GGUF writer:"));
        return;
    }
    File again;
    try {
        again = File::open(scratch.path);
    } catch (const tessera::Error&) {
        check(false);  // the reader rejects what the writer wrote
    }
    check(again.metadata().size() == file.metadata().size());
    for (size_t i = 0; i < file.metadata().size(); ++i) {
        check(again.metadata()[i].key == file.metadata()[i].key);
        check(again.metadata()[i].value == file.metadata()[i].value);
    }
    check(again.alignment() == file.alignment());
    check(again.tensors().size() == file.tensors().size());
    for (size_t i = 0; i < file.tensors().size(); ++i) {
        const TensorInfo &a = file.tensors()[i], &b = again.tensors()[i];
        check(a.name == b.name && a.type.id == b.type.id && a.ne == b.ne);
        check(std::equal(a.data.begin(), a.data.end(), b.data.begin(), b.data.end()));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const File file = File::parse({data, size}, "fuzz-input");
        g_sink = touch_metadata(file) + touch_tensors(file);
        // Writing costs a file per input: only for small ones, which the fuzzer explores most.
        if (size <= 64 * 1024) check_round_trip(file);
    } catch (const tessera::Error&) {
    }
    return 0;
}
