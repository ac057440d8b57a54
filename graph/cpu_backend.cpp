#include "graph/cpu_backend.hpp"

#include <omp.h>

#include <atomic>
#include <exception>

#include "ops/op_def.hpp"

namespace tessera {

CpuBackend::CpuBackend(int n_threads) : n_threads_(n_threads > 0 ? n_threads : omp_get_max_threads()) {}

bool CpuBackend::supports(const Tensor& node) const { return node.op->eval_cpu != nullptr; }

size_t CpuBackend::work_bytes(const Tensor& node) const {
    return node.op->cpu_work_bytes ? node.op->cpu_work_bytes(node, n_threads_) : 0;
}

void CpuBackend::run(std::span<Tensor* const> nodes, void* work, const NodeDone& done) {
    // An exception must not leave the parallel region: the first one is kept,
    // every thread stops at the same node boundary, and it is rethrown after.
    std::exception_ptr error;
    std::atomic<bool> failed{false};
    cpu::run_team(n_threads_, [&](const cpu::ThreadTeam& team) {
        const CpuContext ctx{.team = team, .work = work};
        double start = omp_get_wtime();
        for (Tensor* node : nodes) {
            try {
                node->op->eval_cpu(*node, ctx);
            } catch (...) {
#pragma omp critical(tessera_cpu_backend_error)
                if (!failed.exchange(true)) error = std::current_exception();
            }
            team.barrier();
            if (failed.load()) break;
            if (team.ith == 0 && done) {
                done(*node, omp_get_wtime() - start);
                start = omp_get_wtime();
            }
        }
    });
    if (error) std::rethrow_exception(error);
}

}  // namespace tessera
