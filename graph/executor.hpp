// Runs a graph for a set of outputs.
//
// Planning (constructor): the nodes the outputs need, in dependency order
// (data inputs and after() edges); each node assigned to the first backend
// that supports it (or to options.place); a transfer node inserted where a
// node reads another backend's tensor (two between devices, which share no
// memory: into the host, then into the reader's device); a device other
// than the one holding the inputs reads its own copy of them, refreshed at
// the start of every run; the schedule grouped into levels of
// independent nodes; storage of every intermediate planned from liveness in
// one arena per backend (outputs and dumped nodes are kept). Before levels
// are made, a backend may inline nodes into the kernels that read them
// (Backend::inlines; never outputs, dumped nodes, or with options.fuse off);
// such a node has no storage unless the backend says its kernel stores it
// too (Backend::stores_inlined).
// After planning, every tensor's data pointer is fixed: fill the inputs
// through Tensor::data, then run() as often as needed.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "graph/backend.hpp"
#include "graph/graph.hpp"
#include "graph/profile.hpp"

namespace tessera {

class TraceWriter;

struct ExecutorOptions {
    // Backends, in order of preference (at least one: a CpuBackend, say).
    std::vector<std::shared_ptr<Backend>> backends{};
    // Overrides the placement of a node: return a backend index, or -1 for
    // the default. A node the chosen backend cannot run goes to the first
    // host backend that can (a device's CPU fallback when a model is split
    // over devices by layer).
    std::function<int(const Tensor&)> place{};
    bool profile = false;
    // Let backends inline nodes into their readers' kernels (fewer dispatches
    // and barriers on a GPU); off, every node runs and can be dumped.
    bool fuse = true;
    // Non-empty: after each run, the outputs of the nodes named in `dump`
    // (every computed node when `dump` is empty) are written to this directory.
    std::string dump_dir{};
    std::vector<std::string> dump{};
};

class Executor {
public:
    Executor(Graph& graph, std::vector<Tensor*> outputs, ExecutorOptions options = {});
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    void run();

    // Nodes in the order they run (views included; they cost nothing).
    const std::vector<Tensor*>& schedule() const { return schedule_; }
    const std::vector<std::shared_ptr<Backend>>& backends() const { return backends_; }
    // Bytes of the activation arenas (all backends) and of the inputs.
    size_t peak_activation_bytes() const { return peak_bytes_; }
    size_t input_bytes() const { return input_bytes_; }
    size_t work_bytes() const { return work_bytes_; }  // scratch of all backends
    // Accumulated over runs when options.profile is set.
    const Profile& profile() const { return profile_; }

private:
    void order(const std::vector<Tensor*>& outputs);
    void place_nodes();
    void keep_externals_on_one_backend();
    void mirror_inputs();
    void insert_transfers();
    void inline_nodes();
    void group_by_level();
    void plan_storage(const std::vector<Tensor*>& outputs);
    std::string backend_label(int b) const;

    Graph& graph_;
    ExecutorOptions options_;
    std::vector<std::shared_ptr<Backend>> backends_;
    std::vector<Tensor*> outputs_, schedule_;
    std::vector<Tensor*> transfers_;  // the transfer nodes insert_transfers() added
    std::vector<Tensor*> inputs_;
    std::vector<int> level_;  // group_by_level()'s, by tensor id
    std::vector<bool> stored_inline_;  // by tensor id: inlined, with storage all the same (Backend::stores_inlined)
    std::vector<std::shared_ptr<void>> arenas_, works_, shared_storage_;
    std::vector<std::shared_ptr<void>> segment_states_;  // Backend::run_segment's, per segment
    int shared_backend_ = 0;  // the backend that allocates inputs (a device backend when there is one)
    int host_backend_ = -1;   // the first host backend: between devices, transfers go through it
    std::shared_ptr<void> input_storage_;
    // Inputs read on a device other than shared_backend_: its copy of them.
    struct Mirror {
        Tensor* input;
        Tensor* copy;
    };
    std::vector<Mirror> mirrors_;
    size_t peak_bytes_ = 0, input_bytes_ = 0, work_bytes_ = 0;
    std::unordered_set<std::string> dump_names_;  // options_.dump
    Profile profile_;
    std::unique_ptr<TraceWriter> trace_;
};

}  // namespace tessera
