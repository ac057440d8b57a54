// A tensor graph under construction: owns its tensors and names them. Op
// builders (ops/*.hpp) add nodes through add_node; the executor runs a graph
// for a set of outputs.
//
//   Graph g;
//   Tensor* x = g.input("x", GgmlType::F32, {2048, n_tokens});
//   Tensor* w = g.weight("blk.0.attn_q.weight", GgmlType::Q4_0, {2048, 2048}, data);
//   Tensor* y = matmul(w, rms_norm(x, 1e-5f));
#pragma once

#include <any>
#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/tensor.hpp"

namespace tessera {

class Graph {
public:
    Graph() = default;
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;

    // A leaf whose storage the executor provides; fill it after planning
    // (Executor::input) before each run.
    Tensor* input(std::string name, GgmlType type, Shape ne);
    // A read-only leaf borrowing data that outlives the graph (a GGUF weight).
    Tensor* weight(std::string name, GgmlType type, Shape ne, const void* data);
    // A writable leaf borrowing data that outlives the graph (a KV cache).
    Tensor* external(std::string name, GgmlType type, Shape ne, void* data);

    // For op builders: a node of `op` with the given output type and shape
    // (dense strides unless nb is given), named "<op>.<id>" until renamed.
    Tensor* add_node(const OpDef& op, GgmlType type, Shape ne, std::vector<Tensor*> src, std::any params = {});
    Tensor* add_node(const OpDef& op, GgmlType type, Shape ne, Strides nb, std::vector<Tensor*> src,
                     std::any params = {});

    // Names t (names are unique within a graph: the handle for tracing and
    // dumping). Returns t, so a builder expression can be named inline.
    Tensor* name(Tensor* t, std::string name);
    Tensor* find(std::string_view name) const;  // nullptr when absent
    Tensor& get(std::string_view name) const;   // throws when absent

    const std::deque<Tensor>& tensors() const { return tensors_; }
    std::deque<Tensor>& tensors() { return tensors_; }

private:
    Tensor* add_leaf(std::string name, GgmlType type, Shape ne, LeafKind kind, void* data);
    Tensor* create(std::string name);

    std::deque<Tensor> tensors_;  // stable addresses
    std::unordered_map<std::string, Tensor*> by_name_;
};

// The graph all of `tensors` belong to; throws when they mix graphs. For op builders.
Graph& graph_of(std::initializer_list<const Tensor*> tensors, std::string_view op);

// Adds an ordering-only dependency: `t` runs (or is read) after `before`.
Tensor* after(Tensor* t, Tensor* before);

}  // namespace tessera
