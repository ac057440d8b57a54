// The executor's placement across devices (graph/executor.hpp), without a
// GPU: "devices" here are CPU backends that say their memory is not the
// host's, so the executor plans for them as for two GPUs (crossings through
// the host, the inputs' copies), while their memory stays readable by the
// test. A node placed on a backend that cannot run it goes to the host.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "graph/cpu/cpu_backend.hpp"
#include "graph/executor.hpp"
#include "graph/reference_backend.hpp"
#include "graph/transfer.hpp"
#include "graph_test_util.hpp"
#include "ops/ops.hpp"

namespace tessera {
namespace {

// A CPU backend that plans as a device and, when told so, has no kernel for silu.
class PretendDevice final : public Backend {
public:
    explicit PretendDevice(bool runs_silu = true) : runs_silu_(runs_silu) {}
    std::string_view name() const override { return "device"; }
    bool host_addressable() const override { return false; }
    bool supports(const Tensor& node) const override {
        return (runs_silu_ || node.op->name != "silu") && cpu_.supports(node);
    }
    size_t work_bytes(const Tensor& node) const override { return cpu_.work_bytes(node); }
    void run(std::span<Tensor* const> nodes, void* work, const NodeDone& done) override { cpu_.run(nodes, work, done); }

private:
    bool runs_silu_;
    CpuBackend cpu_{1};
};

struct Chain {
    Graph g;
    Tensor* x = nullptr;
    Tensor* y = nullptr;
};

// a = x + x, b = silu(a) on the first device; c = b + x, y = silu(c) on the second.
void build(Chain& c) {
    c.x = c.g.input("x", GgmlType::F32, {64, 2, 1, 1});
    Tensor* a = c.g.name(add(c.x, c.x), "a");
    Tensor* b = c.g.name(silu(a), "b");
    Tensor* d = c.g.name(add(b, c.x), "c");
    c.y = c.g.name(silu(d), "y");
}

std::vector<float> values(float seed) {
    std::vector<float> v(128);
    for (size_t i = 0; i < v.size(); ++i) v[i] = seed * float(int(i % 17) - 8) / 8;
    return v;
}

std::vector<float> on_the_cpu(const std::vector<float>& x) {
    Chain c;
    build(c);
    Executor exec(c.g, {c.y}, {.backends = {std::make_shared<CpuBackend>(1)}});
    test::fill(c.x, x);
    exec.run();
    const auto y = test::f32_values(*c.y);
    return {y.begin(), y.end()};
}

// Two pretend devices and the CPU; the chain's nodes from c on go to the second device.
ExecutorOptions split_at_c(const Chain& c) {
    const int second = c.g.get("c").id;
    return {.backends = {std::make_shared<PretendDevice>(), std::make_shared<PretendDevice>(),
                         std::make_shared<CpuBackend>(1)},
            .place = [second](const Tensor& t) { return t.id >= second ? 1 : 0; }};
}

TEST(ExecutorDevices, ATensorCrossesBetweenDevicesThroughTheHost) {
    Chain c;
    build(c);
    Executor exec(c.g, {c.y}, split_at_c(c));
    std::string transfers;
    for (const Tensor* t : exec.schedule())
        if (t->op == &ops::kTransfer) transfers += t->name + "@" + std::to_string(t->backend) + " ";
    EXPECT_EQ(transfers, "b.via_host_to_device1@2 b.via_host_to_device1.to_device1@1 ");
    const Tensor* copy = c.g.find("x.on_device1");
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(c.g.get("c").src[1], copy);
    // Each run reads the inputs as the caller filled them, on both devices.
    for (const float seed : {1.0f, -3.0f}) {
        test::fill(c.x, values(seed));
        exec.run();
        const auto y = test::f32_values(*c.y);
        EXPECT_EQ(std::vector<float>(y.begin(), y.end()), on_the_cpu(values(seed))) << seed;
    }
}

// Profiled, each segment is a step of the run with its backend (by index
// where two share a name) and its nodes, in the order they run, and the
// copies of the inputs for the second device one more; the node lines name
// the device too.
TEST(ExecutorDevices, TheProfileTimesEachSegmentOfARun) {
    Chain c;
    build(c);
    ExecutorOptions options = split_at_c(c);
    options.profile = true;
    Executor exec(c.g, {c.y}, options);
    test::fill(c.x, values(1.0f));
    exec.run();
    exec.run();
    std::vector<std::string> steps;
    int nodes = 0;
    for (const Profile::Step& s : exec.profile().steps()) {
        steps.push_back(s.name);
        EXPECT_EQ(s.runs, 2) << s.name;
        EXPECT_GE(s.seconds, s.node_seconds) << s.name;
        nodes += s.nodes;
    }
    EXPECT_EQ(steps, (std::vector<std::string>{"inputs to other devices", "segment 0 device0", "segment 1 cpu",
                                               "segment 2 device1"}));
    size_t computed = 0;
    for (const Tensor* t : exec.schedule()) computed += !t->is_view() && !t->inlined;
    EXPECT_EQ(size_t(nodes), computed);
    for (const Profile::Entry& e : exec.profile().entries()) {
        if (e.name == "c") {
            EXPECT_EQ(e.backend, "device1");
        }
    }
    std::ostringstream table;
    exec.profile().print(table);
    EXPECT_NE(table.str().find("segment 2 device1"), std::string::npos) << table.str();
}

TEST(ExecutorDevices, ANodeItsDeviceCannotRunGoesToTheHost) {
    Chain c;
    build(c);
    const std::vector<std::shared_ptr<Backend>> backends{std::make_shared<PretendDevice>(false),
                                                         std::make_shared<ReferenceBackend>()};
    Executor exec(c.g, {c.y}, {.backends = backends, .place = [](const Tensor&) { return 0; }});
    EXPECT_EQ(c.g.get("a").backend, 0);
    EXPECT_EQ(c.g.get("b").backend, 1);
    EXPECT_EQ(c.g.get("c").backend, 0);
    EXPECT_EQ(c.y->backend, 1);
    test::fill(c.x, values(2));
    exec.run();
    const auto y = test::f32_values(*c.y);
    const std::vector<float> expected = on_the_cpu(values(2));
    ASSERT_EQ(y.size(), expected.size());
    for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], expected[i], 1e-6f * (1 + std::abs(expected[i]))) << i;
}

TEST(ExecutorDevices, WithoutAHostBackendNothingCarriesBetweenDevices) {
    Chain c;
    build(c);
    const int second = c.g.get("c").id;
    ExecutorOptions options{.backends = {std::make_shared<PretendDevice>(), std::make_shared<PretendDevice>()},
                            .place = [&](const Tensor& t) { return t.id >= second ? 1 : 0; }};
    try {
        Executor exec(c.g, {c.y}, options);
        FAIL() << "planned a crossing without a host backend";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no host backend can carry it"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace tessera
