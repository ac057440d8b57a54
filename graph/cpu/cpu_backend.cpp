#include "graph/cpu/cpu_backend.hpp"

#include <omp.h>

#include <atomic>
#include <exception>
#include <vector>

#include "graph/cpu/cpu_kernel.hpp"
#include "support/error.hpp"

namespace tessera {

CpuBackend::CpuBackend(int n_threads) : n_threads_(n_threads > 0 ? n_threads : omp_get_max_threads()) {}

bool CpuBackend::supports(const Tensor& node) const { return find_kernel<CpuKernel>(*node.op) != nullptr; }

size_t CpuBackend::work_bytes(const Tensor& node) const {
    const CpuKernel* kernel = find_kernel<CpuKernel>(*node.op);
    return kernel && kernel->work_bytes ? kernel->work_bytes(node, n_threads_) : 0;
}

void CpuBackend::run(std::span<Tensor* const> nodes, void* work, const NodeDone& done) {
    std::vector<const CpuKernel*> kernels(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i)
        if (!(kernels[i] = find_kernel<CpuKernel>(*nodes[i]->op)))
            throw Error("no CPU kernel for node " + describe(*nodes[i]) + " (" + std::string(nodes[i]->op->name) + ")");
    // An exception must not leave the parallel region: the first one is kept,
    // every thread stops at the same node boundary, and it is rethrown after.
    std::exception_ptr error;
    std::atomic<bool> failed{false};
    cpu::run_team(n_threads_, [&](const cpu::ThreadTeam& team) {
        const CpuContext ctx{.team = team, .work = work};
        double start = omp_get_wtime();
        for (size_t i = 0; i < nodes.size(); ++i) {
            try {
                kernels[i]->run(*nodes[i], ctx);
            } catch (...) {
#pragma omp critical(tessera_cpu_backend_error)
                if (!failed.exchange(true)) error = std::current_exception();
            }
            team.barrier();
            if (failed.load()) break;
            if (team.ith == 0 && done) {
                done(*nodes[i], omp_get_wtime() - start);
                start = omp_get_wtime();
            }
        }
    });
    if (error) std::rethrow_exception(error);
}

}  // namespace tessera
