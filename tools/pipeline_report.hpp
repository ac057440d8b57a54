// The driver's statistics of the kernels a session's device backend compiled
// (a Vulkan device's pipelines: registers, shared memory, spills, through
// VK_KHR_pipeline_executable_properties; Backend::kernel_statistics),
// printed after `tessera run --profile`'s node table.
#pragma once

#include <cstdio>

namespace tessera {
class Backend;
}

namespace tessera::cli {

// One line per pipeline: shader, specialization constants, then each
// statistic as the driver names it. Nothing for a CPU backend or a device
// that reports none.
void print_pipeline_statistics(const Backend& backend, std::FILE* out);

}  // namespace tessera::cli
