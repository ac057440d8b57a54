// The seam between the executor and the hardware. A backend runs the nodes
// assigned to it and owns the memory of their outputs; the executor plans
// that memory, orders the nodes, and inserts transfer nodes where a node
// reads a tensor stored by another backend.
//
// Backends: "cpu" (graph/cpu/: vectorized kernels on an OpenMP team),
// "reference" (the ops' plain scalar definitions, one thread; what tests
// compare the others against) and "vulkan" (graph/vulkan/: SPIR-V kernels).
// A backend's kernels are registered per op, keyed by its OpDef
// (graph/kernel_registry.hpp). Callers that choose backends by name use
// make_backends (graph/choice/backend_choice.hpp).
//
// Memory: a host backend's storage is plain host memory. A device backend
// (host_addressable() false) hands out addresses the host must not touch;
// tensors the host or another backend reads directly (inputs, outputs, the
// sources of transfers) get allocate_shared() storage instead, which the
// host and every backend can read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graph/tensor.hpp"
#include "support/error.hpp"

namespace tessera {

// Failures of a backend that a caller acts on without knowing which backend
// failed (each backend throws its own subclasses, e.g. VulkanOutOfMemory).
// BackendUnavailable: no driver or device, or a device without what the
// backend needs; the caller may fall back to another backend.
// BackendOutOfMemory: the device cannot hold what it was asked to (a model's
// weights); the caller may run elsewhere. Other failures of a device that
// was opened are BackendErrors.
class BackendError : public Error {
public:
    using Error::Error;
};

class BackendUnavailable : public BackendError {
public:
    using BackendError::BackendError;
};

class BackendOutOfMemory : public BackendError {
public:
    using BackendError::BackendError;
};

// What a device backend recorded for the last segment it ran: the
// dispatches and barriers of its command buffer.
struct RecordedWork {
    uint32_t dispatches = 0, barriers = 0;
};

// Called after each node completes, by one thread, with the node's run time.
using NodeDone = std::function<void(const Tensor& node, double seconds)>;

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string_view name() const = 0;
    // The hardware, for reports (a GPU's name); empty for the host.
    virtual std::string device_name() const { return {}; }
    // Bytes a device can still allocate, for splitting a model between
    // devices; nullopt for the host.
    virtual std::optional<uint64_t> free_memory() const { return std::nullopt; }
    // Whether this backend has a kernel for the node's op and types.
    virtual bool supports(const Tensor& node) const = 0;
    // Whether this backend computes `node` (assigned to it) inside the kernels
    // of `readers` instead of storing it: an rms_norm inside the matvecs that
    // read it, say, one dispatch and one barrier less. `readers` are the nodes
    // that read it directly or through views, all on this backend; nodes the
    // node reads have been asked first.
    virtual bool inlines(const Tensor& node, std::span<Tensor* const> readers) const { return false; }
    // Whether the kernel that computes an inlined `node` writes it to memory
    // all the same, for readers that load it later (a MoE router's logits:
    // the topk's dispatch computes them and the moe_sum reads them). Asked
    // once inlines() said yes; such a node gets storage of its own, live
    // from its level (that of the kernel computing it) to its last reader's.
    virtual bool stores_inlined(const Tensor& node, std::span<Tensor* const> readers) const { return false; }
    // The nodes that read a node directly or through views.
    using ReadersOf = std::function<std::span<Tensor* const>(const Tensor&)>;
    // Whether a node that inlines() left alone is computed all the same, and
    // stored, by the kernel of a later node that its readers' inlining leads
    // to (a MoE layer's o projection, by the topk that ranks the router
    // reading it through an inlined norm; k's matvec, by the cache store of
    // its normed, rotated heads). Asked after every node's inlines(),
    // producers first, with `readers_of` to look past the node's readers; the
    // node is then inlined and stored.
    virtual bool computed_later(const Tensor& node, std::span<Tensor* const> readers,
                                const ReadersOf& readers_of) const {
        return false;
    }
    // Storage for planned tensors (zeroed, 64-byte aligned; host-addressable
    // unless host_addressable() is false).
    virtual std::shared_ptr<void> allocate(size_t bytes);
    virtual bool host_addressable() const { return true; }
    // Storage the host and this backend both read and write directly.
    virtual std::shared_ptr<void> allocate_shared(size_t bytes) { return allocate(bytes); }
    // Makes a weight leaf ready for this backend ahead of its first use (a
    // device copies it to device memory) and keeps it so while the returned
    // handle lives; nullptr where nothing is kept (the host). A device keeps
    // a weight's copy while a handle or a plan that reads it lives, and copies
    // the weight's bytes again when a later plan reads it after that: a
    // weight freed and another at its address get their own copies.
    virtual std::shared_ptr<void> preload(const Tensor& weight) { return nullptr; }
    // Copies `bytes` bytes at this backend's address `data` into host memory.
    virtual void copy_to_host(const void* data, size_t bytes, void* dst) const;
    // Scratch a node needs while it runs (shared by the backend's threads).
    virtual size_t work_bytes(const Tensor& node) const { return 0; }
    // Runs nodes in order; inputs are ready, outputs have storage. `work`
    // holds the largest work_bytes of the nodes. `done` may be empty.
    virtual void run(std::span<Tensor* const> nodes, void* work, const NodeDone& done) = 0;
    // run() for the executor, which calls it with the same nodes on every run
    // of one plan and keeps `state` for the backend (a recorded command
    // buffer) until the plan is destroyed.
    virtual void run_segment(std::span<Tensor* const> nodes, void* work, const NodeDone& done,
                             std::shared_ptr<void>& state) {
        run(nodes, work, done);
    }

    // For reports (`tessera bench`, `run --profile`). The last segment's
    // recorded work; nothing for a backend that records none (the host).
    virtual std::optional<RecordedWork> last_recorded_work() const { return std::nullopt; }
    // The driver's statistics of the kernels compiled so far, one line per
    // kernel ("<kernel> [<spec>] | <name> <value> | ..."): a device's
    // registers, shared memory, spills. Empty for the host or a device that
    // reports none.
    virtual std::vector<std::string> kernel_statistics() const { return {}; }
};

}  // namespace tessera
