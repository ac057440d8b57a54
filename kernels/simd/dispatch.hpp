// The run-time choice of an arch: the first arch of a list that the running
// CPU supports. xsimd 8.1's own dispatch picks by version number, comparing
// it with the best arch it detects, so it would never pick an arch it does
// not detect itself (Avx512Vnni); this one asks each arch.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <xsimd/xsimd.hpp>

namespace tessera::simd {

// Whether this CPU runs the code compiled for Arch. xsimd's own archs answer
// available() with a constant true: they run where xsimd's detection finds
// them or a later arch. Any other arch (Scalar, Avx512Vnni) checks the CPU in
// its available().
template <class Arch>
bool runs_here() {
    if constexpr (xsimd::all_architectures::contains<Arch>())
        return Arch::version() <= xsimd::available_architectures().best;
    else
        return Arch::available();
}

// Calls f(Arch{}, args...) for the arch chosen when it was made.
template <class ArchList, class F>
class Dispatcher;

template <class... Archs, class F>
class Dispatcher<xsimd::arch_list<Archs...>, F> {
public:
    explicit Dispatcher(F f) : f_(std::move(f)), chosen_(first_that_runs_here()) {}

    template <class... Args>
    auto operator()(Args&&... args) const {
        return call<0, Archs...>(std::forward<Args>(args)...);
    }

    // The position in Archs of the arch this dispatcher calls.
    size_t chosen() const { return chosen_; }

private:
    // The last arch is the fallback, taken without asking (in the native
    // build the one arch: no check, and no branch in operator()).
    static size_t first_that_runs_here() {
        constexpr size_t n = sizeof...(Archs);
        if constexpr (n == 1) {
            return 0;
        } else {
            const bool runs[n] = {runs_here<Archs>()...};
            for (size_t i = 0; i + 1 < n; ++i)
                if (runs[i]) return i;
            return n - 1;
        }
    }

    template <size_t I, class Arch, class... Rest, class... Args>
    auto call(Args&&... args) const {
        if constexpr (sizeof...(Rest) == 0) {
            return f_(Arch{}, std::forward<Args>(args)...);
        } else {
            if (chosen_ == I) return f_(Arch{}, std::forward<Args>(args)...);
            return call<I + 1, Rest...>(std::forward<Args>(args)...);
        }
    }

    F f_;
    size_t chosen_;
};

// The kernel functor f, called with the first arch of ArchList that this CPU runs.
template <class ArchList, class F>
Dispatcher<ArchList, std::decay_t<F>> dispatch(F&& f) {
    return Dispatcher<ArchList, std::decay_t<F>>(std::forward<F>(f));
}

}  // namespace tessera::simd
