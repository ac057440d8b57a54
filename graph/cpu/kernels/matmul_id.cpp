// matmul_id: the slots (token, chosen expert) grouped by expert, each
// group's activation rows gathered, one cpu::matmul per expert that has any
// (its weights read once for the whole batch), the products scattered back.
#include <algorithm>
#include <cstring>
#include <string>

#include "graph/cpu/cpu_kernel.hpp"
#include "kernels/cpu/matmul.hpp"
#include "ops/matmul_id.hpp"
#include "support/error.hpp"

namespace tessera::cpuk {

namespace {

size_t aligned(size_t bytes) { return (bytes + 63) / 64 * 64; }

// The kernel's scratch, carved from the work buffer.
struct Scratch {
    int64_t* first;  // n_expert + 1: expert e's slots are order[first[e] .. first[e + 1])
    int32_t* order;  // slot indices (j + slots * t), grouped by expert
    float* x;        // the gathered activation rows, in `order`
    float* y;        // their products
    void* matmul_work;

    Scratch(const Tensor& y_node, void* work) {
        const Tensor& w = *y_node.src[0];
        const int64_t n_slots = y_node.ne[1] * y_node.ne[2];
        auto* p = static_cast<char*>(work);
        first = reinterpret_cast<int64_t*>(p);
        p += aligned(size_t(w.ne[2] + 1) * sizeof(int64_t));
        order = reinterpret_cast<int32_t*>(p);
        p += aligned(size_t(n_slots) * sizeof(int32_t));
        x = reinterpret_cast<float*>(p);
        p += aligned(size_t(n_slots * w.ne[0]) * sizeof(float));
        y = reinterpret_cast<float*>(p);
        p += aligned(size_t(n_slots * w.ne[1]) * sizeof(float));
        matmul_work = p;
    }
};

size_t work_bytes(const Tensor& y, int n_threads) {
    const Tensor& w = *y.src[0];
    const int64_t n_slots = y.ne[1] * y.ne[2];
    // An expert's product has 1 to n_slots rows; the matmul's scratch is
    // laid out differently for one row, for a few, and from
    // kQ16GemmMinTokens on, so the largest of each regime bounds it.
    size_t product = 0;
    for (const int64_t m : {int64_t(1), std::min(n_slots, cpu::kQ16GemmMinTokens - 1), n_slots})
        product = std::max(product, cpu::matmul_work_bytes(w.type, w.ne[0], m, y.param<ActivationPrecision>(), n_threads));
    return aligned(size_t(w.ne[2] + 1) * sizeof(int64_t)) + aligned(size_t(n_slots) * sizeof(int32_t)) +
           aligned(size_t(n_slots * w.ne[0]) * sizeof(float)) + aligned(size_t(n_slots * w.ne[1]) * sizeof(float)) +
           product;
}

void run(const Tensor& y, const CpuContext& ctx) {
    const Tensor& w = *y.src[0];
    const Tensor& x = *y.src[1];
    const Tensor& ids = *y.src[2];
    const int64_t slots = y.ne[1], n_slots = slots * y.ne[2], n_expert = w.ne[2], k_in = w.ne[0], n_out = w.ne[1];
    auto id = [&](int64_t s) { return reinterpret_cast<const int32_t*>(ids.row(s / slots))[s % slots]; };
    // Every thread checks, so that all throw alike before any barrier.
    for (int64_t s = 0; s < n_slots; ++s)
        if (id(s) < 0 || id(s) >= n_expert)
            throw Error("matmul_id: expert id " + std::to_string(id(s)) + " of token " + std::to_string(s / slots) +
                        " is outside the " + std::to_string(n_expert) + " experts of '" + w.name + "'");
    Scratch sc(y, ctx.work);
    if (ctx.team.ith == 0) {  // a counting sort of the slots by expert, in the scratch alone
        std::fill_n(sc.first, n_expert + 1, 0);
        for (int64_t s = 0; s < n_slots; ++s) ++sc.first[id(s) + 1];
        for (int64_t e = 0; e < n_expert; ++e) sc.first[e + 1] += sc.first[e];
        // first[e] serves as expert e's cursor, ending at e + 1's start; then shifted back.
        for (int64_t s = 0; s < n_slots; ++s) sc.order[sc.first[id(s)]++] = int32_t(s);
        for (int64_t e = n_expert; e > 0; --e) sc.first[e] = sc.first[e - 1];
        sc.first[0] = 0;
    }
    ctx.team.barrier();
    const auto [g0, g1] = ctx.team.split(n_slots);
    for (int64_t i = g0; i < g1; ++i) {
        const int64_t s = sc.order[i];
        const char* row = x.row(x.ne[1] == 1 ? 0 : s % slots, s / slots);
        std::memcpy(sc.x + i * k_in, row, size_t(k_in) * sizeof(float));
    }
    bool computed = false;
    for (int64_t e = 0; e < n_expert; ++e) {
        const int64_t begin = sc.first[e], m = sc.first[e + 1] - begin;
        if (m == 0) continue;
        ctx.team.barrier();  // the gathered rows are complete; the previous product is done with the work buffer
        cpu::matmul({.weight_type = w.type,
                     .w = w.row(0, e),
                     .w_stride = w.nb[1],
                     .x = sc.x + begin * k_in,
                     .x_stride = size_t(k_in) * sizeof(float),
                     .y = sc.y + begin * n_out,
                     .y_stride = size_t(n_out) * sizeof(float),
                     .n = n_out,
                     .k = k_in,
                     .m = m,
                     .activations = y.param<ActivationPrecision>()},
                    sc.matmul_work, ctx.team);
        computed = true;
    }
    if (!computed) return;  // no slots
    ctx.team.barrier();
    for (int64_t i = g0; i < g1; ++i) {
        const int64_t s = sc.order[i];
        std::memcpy(y.row(s % slots, s / slots), sc.y + i * n_out, size_t(n_out) * sizeof(float));
    }
}

const CpuKernel kMatmulId{.op = &ops::kMatmulId, .run = run, .work_bytes = work_bytes};
[[maybe_unused]] const bool registered = register_kernel(kMatmulId);

}  // namespace

}  // namespace tessera::cpuk
