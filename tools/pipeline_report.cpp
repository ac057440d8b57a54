#include "tools/pipeline_report.hpp"

#include <string>
#include <vector>

#include "graph/backend.hpp"

namespace tessera::cli {

void print_pipeline_statistics(const Backend& backend, std::FILE* out) {
    const std::vector<std::string> lines = backend.kernel_statistics();
    if (lines.empty()) return;
    std::fprintf(out, "\n%s pipelines (%s's statistics):\n", std::string(backend.name()).c_str(),
                 backend.device_name().c_str());
    for (const std::string& line : lines) std::fprintf(out, "%s\n", line.c_str());
}

}  // namespace tessera::cli
