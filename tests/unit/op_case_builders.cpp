#include "op_case_builders.hpp"

#include <map>
#include <tuple>

#include "graph_test_util.hpp"

namespace tessera::test {

Tensor* in(Graph& g, const char* name, Shape ne, GgmlType type) { return g.input(name, type, ne); }

const std::vector<uint8_t>& weights_of(GgmlType type, int64_t cols, int64_t rows) {
    static std::map<std::tuple<GgmlType, int64_t, int64_t>, std::vector<uint8_t>> cache;
    auto& w = cache[{type, cols, rows}];
    if (w.empty()) w = random_weights(type, cols, rows, 11, 0.5f);
    return w;
}

}  // namespace tessera::test
