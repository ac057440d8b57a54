#include "graph/profile.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>

#include "graph/op_def.hpp"

namespace tessera {

void Profile::add(const Tensor& node, std::string_view backend, double seconds) {
    const OpCost c = node.op->cost ? node.op->cost(node) : OpCost{};
    add({.name = node.name,
         .op = std::string(node.op->name),
         .shape = std::string(ggml_type_traits(node.type).name) + " " + shape_string(node.ne),
         .backend = std::string(backend),
         .flops = c.flops,
         .bytes = c.bytes,
         .runs = 1,
         .seconds = seconds});
}

void Profile::add(const Entry& e) {
    auto [it, inserted] = index_.emplace(e.name + " " + e.shape, entries_.size());
    if (inserted) {
        entries_.push_back(e);
        return;
    }
    Entry& mine = entries_[it->second];
    mine.runs += e.runs;
    mine.seconds += e.seconds;
}

void Profile::add_step(const Step& s) {
    for (Step& mine : steps_)
        if (mine.name == s.name) {
            mine.runs += s.runs;
            mine.nodes = std::max(mine.nodes, s.nodes);
            mine.seconds += s.seconds;
            mine.node_seconds += s.node_seconds;
            return;
        }
    steps_.push_back(s);
}

double Profile::total_seconds() const {
    double total = 0;
    for (const Entry& e : entries_) total += e.seconds / e.runs;
    return total;
}

namespace {

std::string line(const char* fmt, auto... args) {
    char buf[256];
    std::snprintf(buf, sizeof buf, fmt, args...);
    return buf;
}

}  // namespace

void Profile::print(std::ostream& out) const {
    const double total = total_seconds();
    out << line("%-28s %-10s %-22s %-9s %10s %6s %9s %8s\n", "node", "op", "shape", "backend", "time ms", "%",
                "GFLOP/s", "GB/s");
    struct OpTotal {
        int nodes = 0;
        double seconds = 0, flops = 0, bytes = 0;
    };
    std::map<std::string, OpTotal> per_op;
    for (const Entry& e : entries_) {
        const double s = e.seconds / e.runs;
        out << line("%-28s %-10s %-22s %-9s %10.4f %6.2f %9.2f %8.2f\n", e.name.c_str(), e.op.c_str(),
                    e.shape.c_str(), e.backend.c_str(), s * 1e3, total > 0 ? 100 * s / total : 0.0,
                    s > 0 ? e.flops / s * 1e-9 : 0.0, s > 0 ? e.bytes / s * 1e-9 : 0.0);
        OpTotal& t = per_op[e.op];
        t.nodes += 1;
        t.seconds += s;
        t.flops += e.flops;
        t.bytes += e.bytes;
    }
    out << line("\n%-14s %6s %10s %6s %9s %8s\n", "op", "nodes", "time ms", "%", "GFLOP/s", "GB/s");
    for (const auto& [name, t] : per_op)
        out << line("%-14s %6d %10.4f %6.2f %9.2f %8.2f\n", name.c_str(), t.nodes, t.seconds * 1e3,
                    total > 0 ? 100 * t.seconds / total : 0.0, t.seconds > 0 ? t.flops / t.seconds * 1e-9 : 0.0,
                    t.seconds > 0 ? t.bytes / t.seconds * 1e-9 : 0.0);
    out << line("%-14s %6zu %10.4f\n", "total", entries_.size(), total * 1e3);
    if (steps_.empty()) return;
    out << line("\n%-28s %6s %6s %10s %10s\n", "step (wall clock, per run)", "runs", "nodes", "wall ms", "nodes ms");
    for (const Step& s : steps_)
        out << line("%-28s %6d %6d %10.4f %10.4f\n", s.name.c_str(), s.runs, s.nodes, s.seconds / s.runs * 1e3,
                    s.node_seconds / s.runs * 1e3);
}

}  // namespace tessera
