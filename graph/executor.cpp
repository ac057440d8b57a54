#include "graph/executor.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "graph/memory_plan.hpp"
#include "graph/op_def.hpp"
#include "graph/trace.hpp"
#include "graph/transfer.hpp"
#include "support/error.hpp"

namespace tessera {

Executor::Executor(Graph& graph, std::vector<Tensor*> outputs, ExecutorOptions options)
    : graph_(graph),
      options_(std::move(options)),
      backends_(options_.backends),
      dump_names_(options_.dump.begin(), options_.dump.end()) {
    if (backends_.empty()) throw Error("executor: no backends to run on (ExecutorOptions::backends)");
    if (outputs.empty()) throw Error("executor: no outputs to compute");
    for (Tensor* t : outputs)
        if (t == nullptr || t->graph != &graph_) throw Error("executor: an output is null or of another graph");
    outputs_ = outputs;
    // Inputs are written by the host: shared memory of the first device
    // backend (which reads it directly), or plain host memory.
    for (size_t b = backends_.size(); b-- > 0;) {
        if (!backends_[b]->host_addressable()) shared_backend_ = int(b);
        else host_backend_ = int(b);
    }
    order(outputs);
    place_nodes();
    mirror_inputs();
    insert_transfers();
    inline_nodes();
    group_by_level();
    plan_storage(outputs);
    if (!options_.dump_dir.empty()) trace_ = std::make_unique<TraceWriter>(options_.dump_dir);
}

Executor::~Executor() = default;

namespace {

// The node a view chain shows (t itself when t is no view).
Tensor* through_views(Tensor* t) {
    while (t->is_view()) t = t->src[0];
    return t;
}

bool on_device(const Backend& b) { return !b.host_addressable(); }

}  // namespace

// How names of the nodes the executor adds call backend b: its name, with
// its index where another backend has the same name (two devices).
std::string Executor::backend_label(int b) const {
    const std::string_view name = backends_[size_t(b)]->name();
    const auto same = std::count_if(backends_.begin(), backends_.end(), [&](const auto& x) { return x->name() == name; });
    return std::string(name) + (same > 1 ? std::to_string(b) : "");
}

// Depth-first post-order from the outputs: every node after its inputs.
void Executor::order(const std::vector<Tensor*>& outputs) {
    enum class Mark : uint8_t { None, Open, Done };
    std::vector<Mark> mark(graph_.tensors().size(), Mark::None);  // by id
    std::vector<std::pair<Tensor*, size_t>> stack;
    for (Tensor* out : outputs) {
        stack.push_back({out, 0});
        while (!stack.empty()) {
            auto& [t, next] = stack.back();
            if (next == 0) {
                Mark& m = mark[size_t(t->id)];
                if (m == Mark::Done) {
                    stack.pop_back();
                    continue;
                }
                if (m == Mark::Open) throw Error("executor: the graph has a cycle through '" + t->name + "'");
                m = Mark::Open;
            }
            const size_t n_deps = t->src.size() + t->after.size();
            if (next < n_deps) {
                Tensor* dep = next < t->src.size() ? t->src[next] : t->after[next - t->src.size()];
                ++next;
                if (mark[size_t(dep->id)] != Mark::Done) stack.push_back({dep, 0});
                continue;
            }
            mark[size_t(t->id)] = Mark::Done;
            if (t->is_leaf()) {
                if (t->leaf == LeafKind::Input) inputs_.push_back(t);
            } else {
                schedule_.push_back(t);
            }
            stack.pop_back();
        }
    }
}

void Executor::place_nodes() {
    for (Tensor* t : schedule_) {
        if (t->is_view()) {
            t->backend = t->src[0]->is_leaf() ? 0 : t->src[0]->backend;
            continue;
        }
        int chosen = options_.place ? options_.place(*t) : -1;
        if (chosen >= int(backends_.size())) throw Error("executor: node '" + t->name + "' placed on a missing backend");
        if (chosen >= 0 && !backends_[size_t(chosen)]->supports(*t)) {
            const int placed = chosen;
            chosen = -1;
            for (size_t b = 0; chosen < 0 && b < backends_.size(); ++b)
                if (backends_[b]->host_addressable() && backends_[b]->supports(*t)) chosen = int(b);
            if (chosen < 0)
                throw Error("executor: backend " + std::string(backends_[size_t(placed)]->name()) +
                            " cannot run node " + describe(*t) + " (" + std::string(t->op->name) +
                            "), and no host backend can");
        }
        for (size_t b = 0; chosen < 0 && b < backends_.size(); ++b)
            if (backends_[b]->supports(*t)) chosen = int(b);
        if (chosen < 0) throw Error("executor: no backend can run node " + describe(*t) + " (" + std::string(t->op->name) + ")");
        t->backend = chosen;
    }
    keep_externals_on_one_backend();
}

// A device backend keeps its own copy of an external buffer (a KV cache)
// after first use, so every node that reads or writes one must run on a
// single backend: where they were split between a device and another
// backend (a device kernel for set_rows but not for attention, say), they
// all move to the last host backend that can run them.
void Executor::keep_externals_on_one_backend() {
    std::unordered_map<const Tensor*, std::vector<Tensor*>> users;  // external leaf -> nodes touching it
    for (Tensor* t : schedule_) {
        if (t->is_view()) continue;
        for (const Tensor* s : t->src)
            if (const Tensor* root = s->storage_root(); root->leaf == LeafKind::External) users[root].push_back(t);
    }
    int host = -1;
    for (size_t b = 0; b < backends_.size(); ++b)
        if (backends_[b]->host_addressable()) host = int(b);
    for (auto& [root, nodes] : users) {
        bool split = false, device = false;
        for (const Tensor* t : nodes) {
            split = split || t->backend != nodes.front()->backend;
            device = device || !backends_[size_t(t->backend)]->host_addressable();
        }
        if (!split || !device) continue;
        for (Tensor* t : nodes) {
            if (host < 0 || !backends_[size_t(host)]->supports(*t))
                throw Error("executor: node " + describe(*t) + " uses the external buffer '" + root->name +
                            "' that other nodes use on another backend, and no host backend can run it");
            t->backend = host;
        }
    }
    // Views follow their (possibly moved) sources.
    for (Tensor* t : schedule_)
        if (t->is_view() && !t->src[0]->is_leaf()) t->backend = t->src[0]->backend;
}

// Producers first, asks each node's backend whether it computes the node
// inside the kernels of its readers; then, of the nodes left alone, whether
// a later kernel computes them (Backend::computed_later). Never inlined:
// outputs, dumped nodes, nodes with ordering edges, and nodes read by
// another backend.
void Executor::inline_nodes() {
    for (Tensor* t : schedule_) t->inlined = false;  // another executor's choice
    stored_inline_.assign(graph_.tensors().size(), false);
    if (!options_.fuse || (!options_.dump_dir.empty() && options_.dump.empty())) return;
    const size_t n = graph_.tensors().size();
    std::vector<bool> pinned(n);  // by id
    auto pin = [&](Tensor* t) { pinned[size_t(through_views(t)->id)] = true; };
    for (Tensor* t : outputs_) pin(t);
    for (const std::string& name : options_.dump)
        if (Tensor* t = graph_.find(name)) pin(t);
    std::vector<std::vector<Tensor*>> readers(n);  // by id
    for (Tensor* t : schedule_) {
        if (t->is_view()) continue;
        if (!t->after.empty()) pin(t);
        for (Tensor* d : t->after) pin(d);
        for (Tensor* s : t->src) {
            std::vector<Tensor*>& r = readers[size_t(through_views(s)->id)];
            if (std::find(r.begin(), r.end(), t) == r.end()) r.push_back(t);
        }
    }
    auto one_backend = [&](const Tensor* t, const std::vector<Tensor*>& r) {
        return !r.empty() && std::all_of(r.begin(), r.end(), [&](const Tensor* x) { return x->backend == t->backend; });
    };
    for (Tensor* t : schedule_) {
        if (t->is_view() || pinned[size_t(t->id)]) continue;
        const std::vector<Tensor*>& r = readers[size_t(t->id)];
        const Backend& b = *backends_[size_t(t->backend)];
        t->inlined = one_backend(t, r) && b.inlines(*t, r);
        stored_inline_[size_t(t->id)] = t->inlined && b.stores_inlined(*t, r);
    }
    const Backend::ReadersOf readers_of = [&](const Tensor& t) -> std::span<Tensor* const> {
        return readers[size_t(through_views(const_cast<Tensor*>(&t))->id)];
    };
    for (Tensor* t : schedule_) {
        if (t->is_view() || t->inlined || pinned[size_t(t->id)]) continue;
        const std::vector<Tensor*>& r = readers[size_t(t->id)];
        if (one_backend(t, r) && backends_[size_t(t->backend)]->computed_later(*t, r, readers_of)) {
            t->inlined = true;
            stored_inline_[size_t(t->id)] = true;
        }
    }
}

// Reorders the schedule by dependency level (the longest chain of computing
// nodes behind a node; an inlined node computes inside its readers, so it
// adds none), keeping the depth-first order within a level. Nodes of one
// level are independent, so a device backend runs them without a barrier
// between them (q, k and v projections); planning storage by level
// (plan_storage) keeps one level's outputs out of the memory its inputs use,
// which would otherwise need a barrier too.
void Executor::group_by_level() {
    level_.assign(graph_.tensors().size(), -1);  // leaves stay at -1
    for (Tensor* t : schedule_) {
        int level = 0;
        auto depend_on = [&](const Tensor* d) {
            if (const int l = level_[size_t(d->id)]; l >= 0) level = std::max(level, l + (d->is_view() || d->inlined ? 0 : 1));
        };
        for (const Tensor* d : t->src) depend_on(d);
        for (const Tensor* d : t->after) depend_on(d);
        level_[size_t(t->id)] = level;
    }
    std::stable_sort(schedule_.begin(), schedule_.end(),
                     [&](const Tensor* a, const Tensor* b) { return level_[size_t(a->id)] < level_[size_t(b->id)]; });
}

// A device reads only memory of its own: a node on a device other than
// shared_backend_ that reads an input (or a view of one) reads that device's
// copy of it (the same views over a copy the run refreshes first).
void Executor::mirror_inputs() {
    std::map<std::pair<const Tensor*, int>, Tensor*> copies;  // (input or its view, device) -> the copy there
    std::vector<Tensor*> with_views;
    std::function<Tensor*(Tensor*, int)> copy_on = [&](Tensor* s, int b) {
        Tensor*& copy = copies[{s, b}];
        if (copy != nullptr) return copy;
        const std::string name = s->name + ".on_" + backend_label(b);
        if (s->is_leaf()) {
            copy = graph_.input(name, s->type, s->ne);
            copy->backend = b;  // whose shared memory holds it
            mirrors_.push_back({s, copy});
        } else {
            copy = graph_.add_node(*s->op, s->type, s->ne, s->nb, {copy_on(s->src[0], b)}, s->params);
            copy->view_offset = s->view_offset;
            copy->backend = b;
            graph_.name(copy, name);
            with_views.push_back(copy);
        }
        return copy;
    };
    for (Tensor* t : schedule_) {
        if (!t->is_view() && t->backend != shared_backend_ && on_device(*backends_[size_t(t->backend)]))
            for (Tensor*& s : t->src)
                if (through_views(s)->leaf == LeafKind::Input) s = copy_on(s, t->backend);
        with_views.push_back(t);
    }
    schedule_ = std::move(with_views);
}

// Leaves live in memory every backend reads; computed tensors belong to the
// backend that stores them, and a reader on another backend gets a copy. A
// host tensor is copied to one device only: another device reading it gets
// a copy of a host copy, as between two devices.
void Executor::insert_transfers() {
    std::map<std::pair<const Tensor*, int>, Tensor*> copies;  // (tensor, backend) -> its copy there
    std::map<std::pair<const Tensor*, int>, Tensor*> hops;    // (tensor, device) -> its host copy for that device
    std::unordered_map<const Tensor*, int> device_of_host_tensor;  // the device a host tensor is copied to
    std::vector<Tensor*> with_transfers;
    auto add_transfer = [&](Tensor* s, int b, const std::string& name) {
        Tensor* copy = transfer(s);
        copy->backend = b;
        transfers_.push_back(copy);
        graph_.name(copy, name);
        with_transfers.push_back(copy);
        return copy;
    };
    auto copy_to = [&](Tensor* s, int b) {
        Tensor*& copy = copies[{s, b}];
        if (copy == nullptr) copy = add_transfer(s, b, s->name + ".to_" + backend_label(b));
        return copy;
    };
    for (Tensor* t : schedule_) {
        if (!t->is_view()) {
            for (size_t i = 0; i < t->src.size(); ++i) {
                Tensor* s = t->src[i];
                const Tensor* root = s->storage_root();
                if (root->is_leaf() || root->backend == t->backend) continue;
                const bool from_device = on_device(*backends_[size_t(root->backend)]);
                const bool to_device = on_device(*backends_[size_t(t->backend)]);
                bool through_host = from_device && to_device;
                if (!from_device && to_device) {
                    const int first = device_of_host_tensor.try_emplace(root, t->backend).first->second;
                    through_host = first != t->backend;
                }
                if (through_host) {
                    if (host_backend_ < 0)
                        throw Error("executor: node " + describe(*t) + " reads '" + s->name +
                                    "' from another device, and no host backend can carry it");
                    Tensor*& hop = hops[{s, t->backend}];
                    if (hop == nullptr) hop = add_transfer(s, host_backend_, s->name + ".via_host_to_" + backend_label(t->backend));
                    s = hop;
                }
                t->src[i] = copy_to(s, t->backend);
            }
        }
        with_transfers.push_back(t);
    }
    schedule_ = std::move(with_transfers);
}

void Executor::plan_storage(const std::vector<Tensor*>& outputs) {
    // Inputs: one buffer, kept for the executor's lifetime.
    std::vector<size_t> input_offsets;
    for (Tensor* in : inputs_) {
        input_offsets.push_back(input_bytes_);
        input_bytes_ += (in->nbytes() + 63) / 64 * 64;
    }
    input_storage_ = backends_[size_t(shared_backend_)]->allocate_shared(input_bytes_);
    for (size_t i = 0; i < inputs_.size(); ++i)
        inputs_[i]->data = static_cast<char*>(input_storage_.get()) + input_offsets[i];
    for (const Mirror& m : mirrors_) {
        const int device = m.copy->backend;
        shared_storage_.push_back(backends_[size_t(device)]->allocate_shared(m.copy->nbytes()));
        m.copy->data = shared_storage_.back().get();
        input_bytes_ += m.copy->nbytes();
    }

    // Live intervals of the tensors with storage of their own, in levels. An
    // inlined node (or a view) reads its sources at the level of the kernels
    // that compute it: the last level of its readers, readers coming first
    // in reverse order.
    const size_t n = graph_.tensors().size();
    std::vector<int> last_read(n, -1), read_at(n, -1);  // by id; -1: not read
    for (auto it = schedule_.rbegin(); it != schedule_.rend(); ++it) {
        const Tensor* t = *it;
        int at = level_[size_t(t->id)];
        if (t->inlined || t->is_view()) at = std::max(at, read_at[size_t(t->id)]);
        for (const Tensor* s : t->src) {
            read_at[size_t(s->id)] = std::max(read_at[size_t(s->id)], at);
            int& last = last_read[size_t(s->storage_root()->id)];
            last = std::max(last, at);
        }
    }
    const bool dump_all = !options_.dump_dir.empty() && options_.dump.empty();
    for (const std::string& name : options_.dump)
        if (graph_.find(name) == nullptr) throw Error("executor: cannot dump '" + name + "': no such tensor");
    auto kept = [&](const Tensor* t) {
        return dump_all || dump_names_.contains(t->name) ||
               std::find(outputs.begin(), outputs.end(), t) != outputs.end();
    };
    // A device backend's tensors that the host (outputs) or another backend
    // (transfer sources) reads get shared storage of their own, from that
    // device; a host tensor a device copies gets it from that device
    // (insert_transfers copies a host tensor to one device at most).
    std::unordered_map<Tensor*, int> shared;  // tensor -> the backend whose shared memory holds it
    auto device = [&](int b) { return on_device(*backends_[size_t(b)]); };
    for (Tensor* t : outputs)
        if (Tensor* root = t->storage_root(); !root->is_leaf() && device(root->backend)) shared[root] = root->backend;
    for (Tensor* t : transfers_) {
        Tensor* root = t->src[0]->storage_root();
        if (root->is_leaf()) continue;
        if (device(root->backend)) shared[root] = root->backend;
        else if (device(t->backend)) shared[root] = t->backend;
    }
    for (auto& [t, b] : shared) {
        shared_storage_.push_back(backends_[size_t(b)]->allocate_shared(t->nbytes()));
        t->data = shared_storage_.back().get();
        peak_bytes_ += t->nbytes();
    }

    std::vector<std::vector<LiveInterval>> intervals(backends_.size());
    std::vector<std::vector<Tensor*>> owners(backends_.size());
    std::vector<size_t> slot(n);  // by id: index of an owner in its backend's lists
    for (Tensor* t : schedule_) {
        if (t->inlined && !stored_inline_[size_t(t->id)]) {
            t->data = nullptr;  // not storage an earlier executor of the graph gave it
            continue;
        }
        if (t->is_view() || t->op->alias_src >= 0 || shared.contains(t)) continue;
        const int first = level_[size_t(t->id)];
        int last = std::max(first, last_read[size_t(t->id)]);
        if (kept(t)) last = INT_MAX;
        slot[size_t(t->id)] = owners[size_t(t->backend)].size();
        intervals[size_t(t->backend)].push_back({t->nbytes(), first, last});
        owners[size_t(t->backend)].push_back(t);
    }
    // Views and aliases of kept tensors keep their storage too.
    for (Tensor* t : schedule_)
        if ((t->is_view() || t->op->alias_src >= 0) && kept(t)) {
            Tensor* root = t->storage_root();
            if (root->is_leaf() || shared.contains(root)) continue;
            intervals[size_t(root->backend)][slot[size_t(root->id)]].last = INT_MAX;
        }

    for (size_t b = 0; b < backends_.size(); ++b) {
        const MemoryPlan plan = plan_memory(intervals[b]);
        arenas_.push_back(backends_[b]->allocate(plan.peak_bytes));
        peak_bytes_ += plan.peak_bytes;
        for (size_t i = 0; i < owners[b].size(); ++i)
            owners[b][i]->data = static_cast<char*>(arenas_.back().get()) + plan.offsets[i];
        size_t work = 0;
        for (const Tensor* t : schedule_)
            if (t->backend == int(b) && !t->is_view()) work = std::max(work, backends_[b]->work_bytes(*t));
        works_.push_back(backends_[b]->allocate(work));
        work_bytes_ += work;
    }
    for (Tensor* t : schedule_) {
        if (t->is_view())
            t->data = t->src[0]->data ? static_cast<char*>(t->src[0]->data) + t->view_offset : nullptr;  // of an inlined node
        else if (t->op->alias_src >= 0)
            t->data = t->src[size_t(t->op->alias_src)]->data;
    }
}

void Executor::run() {
    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    for (const Mirror& m : mirrors_) std::memcpy(m.copy->data, m.input->data, m.input->nbytes());
    if (options_.profile && !mirrors_.empty())
        profile_.add_step({.name = "inputs to other devices", .runs = 1, .nodes = 0, .seconds = seconds_since(t0)});
    NodeDone done;
    double node_seconds = 0;  // of the segment running (profile)
    if (options_.profile || trace_) {
        done = [&](const Tensor& node, double seconds) {
            if (options_.profile) {
                profile_.add(node, backend_label(node.backend), seconds);
                node_seconds += seconds;
            }
            if (trace_ && (dump_names_.empty() || dump_names_.contains(node.name)))
                trace_->write(node, *backends_[size_t(node.backend)]);
        };
    }
    // Consecutive nodes of one backend run as one segment.
    std::vector<Tensor*> segment;
    int segment_backend = -1;
    size_t n_segments = 0;
    auto flush = [&] {
        if (segment.empty()) return;
        if (segment_states_.size() <= n_segments) segment_states_.resize(n_segments + 1);
        node_seconds = 0;
        t0 = Clock::now();
        backends_[size_t(segment_backend)]->run_segment(segment, works_[size_t(segment_backend)].get(), done,
                                                        segment_states_[n_segments]);
        if (options_.profile)
            profile_.add_step({.name = "segment " + std::to_string(n_segments) + " " + backend_label(segment_backend),
                               .runs = 1,
                               .nodes = int(segment.size()),
                               .seconds = seconds_since(t0),
                               .node_seconds = node_seconds});
        ++n_segments;
        segment.clear();
    };
    for (Tensor* t : schedule_) {
        if (t->is_view() || t->inlined) continue;
        if (t->backend != segment_backend) {
            flush();
            segment_backend = t->backend;
        }
        segment.push_back(t);
    }
    flush();
    // An output written into an external buffer (a cache) by a device
    // backend is copied back, so the host sees what the graph computed.
    for (Tensor* t : outputs_) {
        Tensor* root = t->storage_root();
        const Backend& writer = *backends_[size_t(t->backend)];
        if (root->leaf == LeafKind::External && !t->is_leaf() && !writer.host_addressable())
            writer.copy_to_host(root->data, root->nbytes(), root->data);
    }
    if (trace_) {
        for (const std::string& name : options_.dump) {
            const Tensor& t = graph_.get(name);
            if (t.is_leaf() || t.is_view()) trace_->write(t, *backends_[size_t(t.is_leaf() ? shared_backend_ : t.backend)]);
        }
        trace_->finish();
    }
}

}  // namespace tessera
