// Builds y = x + x * x with the graph API, runs it on the CPU and checks it.
#include <cstdio>
#include <memory>

#include "graph/cpu/cpu_backend.hpp"
#include "graph/executor.hpp"
#include "ops/ops.hpp"

int main() {
    using namespace tessera;
    Graph g;
    Tensor* x = g.input("x", GgmlType::F32, {4, 1, 1, 1});
    Tensor* y = add(x, mul(x, x));
    Executor exec(g, {y}, {.backends = {std::make_shared<CpuBackend>()}});
    float* xs = static_cast<float*>(x->data);
    for (int i = 0; i < 4; ++i) xs[i] = float(i);
    exec.run();
    const float got = static_cast<const float*>(y->data)[3];
    std::printf("y[3] = %g\n", got);
    return got == 12.0f ? 0 : 1;
}
