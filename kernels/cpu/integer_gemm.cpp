#include "kernels/cpu/integer_gemm.hpp"

#include <atomic>

namespace tessera::cpu {
namespace {

std::atomic<bool> allowed{true};

}  // namespace

bool integer_gemm_allowed() { return allowed.load(std::memory_order_relaxed); }

void allow_integer_gemm(bool allow) { allowed.store(allow, std::memory_order_relaxed); }

}  // namespace tessera::cpu
