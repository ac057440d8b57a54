// `tessera compare DIR_A DIR_B [--nmse TOL] [--all]`: the first node whose
// output differs between two traces (from `tessera trace` or ExecutorOptions::dump_dir).
#include <cstdio>

#include "graph/trace_compare.hpp"
#include "tools/commands.hpp"

namespace tessera::cli {
namespace {

struct CompareOptions {
    std::string a, b;
    double tolerance = 1e-6;
    bool all = false;
};

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

int run_compare(const CompareOptions& o) {
    const TraceComparison c = compare_traces(o.a, o.b, o.tolerance);
    std::printf("%-32s %-10s %-16s %12s %12s\n", "node", "op", "shape", "nmse", "max |a-b|");
    const size_t shown = o.all || c.first_divergence < 0 ? c.nodes.size() : size_t(c.first_divergence) + 1;
    for (size_t i = 0; i < shown; ++i) {
        const NodeDifference& d = c.nodes[i];
        const char* mark = d.diverged ? "  <- diverges" : "";
        if (!d.in_both)
            std::printf("%-32s %-10s %-16s %12s %12s%s\n", d.name.c_str(), d.op.c_str(), shape_text(d.shape).c_str(),
                        "missing in B", "", mark);
        else if (!d.same_shape)
            std::printf("%-32s %-10s %-16s %12s %12s%s\n", d.name.c_str(), d.op.c_str(), shape_text(d.shape).c_str(),
                        "shape differs", "", mark);
        else
            std::printf("%-32s %-10s %-16s %12.3e %12.3e%s\n", d.name.c_str(), d.op.c_str(),
                        shape_text(d.shape).c_str(), d.nmse, d.max_abs, mark);
    }
    if (c.first_divergence < 0) {
        std::printf("all %zu nodes agree (nmse <= %g)\n", c.nodes.size(), o.tolerance);
        return 0;
    }
    std::printf("first divergence: %s (node %d of %zu)\n", c.nodes[size_t(c.first_divergence)].name.c_str(),
                c.first_divergence + 1, c.nodes.size());
    return 3;
}

}  // namespace

void add_compare_command(CLI::App& app) {
    auto opts = std::make_shared<CompareOptions>();
    auto* cmd = app.add_subcommand("compare", "Find the first node whose output differs between two trace directories");
    cmd->add_option("dir_a", opts->a, "Reference trace directory")->required();
    cmd->add_option("dir_b", opts->b, "Trace directory to check")->required();
    cmd->add_option("--nmse", opts->tolerance, "Largest normalized squared error counted as equal")
        ->capture_default_str();
    cmd->add_flag("--all", opts->all, "List every node, not only up to the first divergence");
    cmd->callback([opts] {
        if (const int rc = run_compare(*opts); rc != 0) throw CLI::RuntimeError(rc);
    });
}

}  // namespace tessera::cli
