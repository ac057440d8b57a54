// Times one kernel from user code: a matrix-vector product with a quantized
// weight, run through the executor on the CPU. Prints the time per run and the
// weight bandwidth (a matvec reads every weight byte once).
//
//   bench_kernel [rows] [cols] [weight type] [runs]      e.g. bench_kernel 4096 4096 Q4_0 100
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "graph/cpu/cpu_backend.hpp"
#include "graph/executor.hpp"
#include "kernels/quant/registry.hpp"
#include "ops/ops.hpp"

using namespace tessera;

int main(int argc, char** argv) {
    const int64_t rows = argc > 1 ? std::atoll(argv[1]) : 4096;
    const int64_t cols = argc > 2 ? std::atoll(argv[2]) : 4096;
    const QuantTypeEntry& type = require_quant_type(argc > 3 ? argv[3] : "Q4_0", "bench_kernel");
    const int runs = argc > 4 ? std::atoi(argv[4]) : 100;

    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    std::vector<float> row(static_cast<size_t>(cols));
    std::vector<uint8_t> weight(type.row_bytes(cols) * size_t(rows));
    for (int64_t r = 0; r < rows; ++r) {
        for (float& v : row) v = normal(rng);
        type.quantize(row.data(), weight.data() + size_t(r) * type.row_bytes(cols), cols);
    }

    Graph g;
    Tensor* w = g.weight("w", type.traits.id, {cols, rows, 1, 1}, weight.data());
    Tensor* x = g.input("x", GgmlType::F32, {cols, 1, 1, 1});
    Executor exec(g, {matmul(w, x)}, {.backends = {std::make_shared<CpuBackend>()}});
    float* xs = static_cast<float*>(x->data);
    for (int64_t i = 0; i < cols; ++i) xs[i] = normal(rng);

    exec.run();  // warm-up: threads started, weight in cache as far as it fits
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < runs; ++i) exec.run();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / runs;
    std::printf("%s matvec %lldx%lld: %.1f us/run, %.1f GB/s\n", std::string(type.traits.name).c_str(),
                static_cast<long long>(rows), static_cast<long long>(cols), seconds * 1e6,
                double(weight.size()) / seconds / 1e9);
}
