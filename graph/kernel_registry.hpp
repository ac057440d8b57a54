// Each backend's kernels, keyed by the op they implement: its OpDef object,
// not its name. A backend defines its kernel type (a struct with a member
// `const OpDef* op`, say CpuKernel or VulkanKernel); each kernel file of the
// backend registers its kernel as the program starts:
//
//   const CpuKernel kRmsNorm{.op = &ops::kRmsNorm, .run = run};
//   [[maybe_unused]] const bool registered = register_kernel(kRmsNorm);
//
// and the backend finds it with find_kernel<CpuKernel>(*node.op). A kernel
// file only registers, so nothing refers to its object file: the library
// that holds kernel files must be linked whole (the backends library is,
// see graph/CMakeLists.txt), or the linker drops them.
#pragma once

#include <stdexcept>
#include <string>
#include <unordered_map>

#include "graph/op_def.hpp"

namespace tessera {

template <class Kernel>
class KernelRegistry {
public:
    static KernelRegistry& instance() {
        static KernelRegistry registry;
        return registry;
    }

    // Called while the program starts: a second kernel of one backend for
    // the same op is a mistake in the program, reported before main runs.
    void add(const Kernel& kernel) {
        if (!by_op_.emplace(kernel.op, &kernel).second)
            throw std::logic_error("two kernels of one backend are registered for op " + std::string(kernel.op->name));
    }

    // nullptr when no kernel is registered for op.
    const Kernel* find(const OpDef& op) const {
        const auto it = by_op_.find(&op);
        return it == by_op_.end() ? nullptr : it->second;
    }

private:
    std::unordered_map<const OpDef*, const Kernel*> by_op_;
};

// Registers `kernel` (an object that lives as long as the program) for its
// op; returns true, for initializing the file's `registered` constant.
template <class Kernel>
bool register_kernel(const Kernel& kernel) {
    KernelRegistry<Kernel>::instance().add(kernel);
    return true;
}

template <class Kernel>
const Kernel* find_kernel(const OpDef& op) {
    return KernelRegistry<Kernel>::instance().find(op);
}

}  // namespace tessera
