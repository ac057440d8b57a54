#include "graph/graph.hpp"

#include "graph/op_def.hpp"
#include "support/error.hpp"

namespace tessera {

Tensor* Graph::create(std::string name) {
    Tensor& t = tensors_.emplace_back();
    t.graph = this;
    t.id = int(tensors_.size()) - 1;
    if (!name.empty()) this->name(&t, std::move(name));
    return &t;
}

Tensor* Graph::add_leaf(std::string name, GgmlType type, Shape ne, LeafKind kind, void* data) {
    if (name.empty()) throw Error("a graph input or weight needs a name");
    for (int64_t n : ne)
        if (n < 0) throw Error("leaf '" + name + "' has a negative dimension " + shape_string(ne));
    Tensor* t = create(std::move(name));
    t->type = type;
    t->ne = ne;
    t->nb = dense_strides(type, ne);
    t->leaf = kind;
    t->data = data;
    return t;
}

Tensor* Graph::input(std::string name, GgmlType type, Shape ne) {
    return add_leaf(std::move(name), type, ne, LeafKind::Input, nullptr);
}

Tensor* Graph::weight(std::string name, GgmlType type, Shape ne, const void* data) {
    if (data == nullptr) throw Error("weight '" + name + "' has no data");
    return add_leaf(std::move(name), type, ne, LeafKind::Weight, const_cast<void*>(data));
}

Tensor* Graph::external(std::string name, GgmlType type, Shape ne, void* data) {
    if (data == nullptr) throw Error("external tensor '" + name + "' has no data");
    return add_leaf(std::move(name), type, ne, LeafKind::External, data);
}

Tensor* Graph::add_node(const OpDef& op, GgmlType type, Shape ne, std::vector<Tensor*> src, std::any params) {
    return add_node(op, type, ne, dense_strides(type, ne), std::move(src), std::move(params));
}

Tensor* Graph::add_node(const OpDef& op, GgmlType type, Shape ne, Strides nb, std::vector<Tensor*> src,
                        std::any params) {
    for (const Tensor* s : src)
        if (s == nullptr || s->graph != this)
            throw Error(std::string(op.name) + ": an input is null or belongs to another graph");
    Tensor* t = create({});
    t->op = &op;
    t->type = type;
    t->ne = ne;
    t->nb = nb;
    t->src = std::move(src);
    t->params = std::move(params);
    this->name(t, std::string(op.name) + "." + std::to_string(t->id));
    return t;
}

Tensor* Graph::name(Tensor* t, std::string name) {
    if (t == nullptr || t->graph != this) throw Error("cannot name a tensor of another graph as '" + name + "'");
    if (name.empty()) throw Error("tensor names must not be empty");
    if (name == t->name) return t;
    if (by_name_.contains(name)) throw Error("the graph already has a tensor named '" + name + "'");
    by_name_.erase(t->name);
    t->name = name;
    by_name_.emplace(std::move(name), t);
    return t;
}

Tensor* Graph::find(std::string_view name) const {
    auto it = by_name_.find(std::string(name));
    return it == by_name_.end() ? nullptr : it->second;
}

Tensor& Graph::get(std::string_view name) const {
    Tensor* t = find(name);
    if (t == nullptr) throw Error("the graph has no tensor named '" + std::string(name) + "'");
    return *t;
}

Graph& graph_of(std::initializer_list<const Tensor*> tensors, std::string_view op) {
    Graph* g = nullptr;
    for (const Tensor* t : tensors) {
        if (t == nullptr) throw Error(std::string(op) + ": an input tensor is null");
        if (g != nullptr && t->graph != g) throw Error(std::string(op) + ": inputs belong to different graphs");
        g = t->graph;
    }
    if (g == nullptr) throw Error(std::string(op) + ": no inputs");
    return *g;
}

Tensor* after(Tensor* t, Tensor* before) {
    graph_of({t, before}, "after");
    t->after.push_back(before);
    return t;
}

}  // namespace tessera
