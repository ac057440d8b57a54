// matmul_coopmat.glsl with 4 x 2 cooperative matrices per subgroup (64 x 32
// with 16 x 16 ones): fewer shared-memory loads per multiply, for matrices
// with rows enough to fill the GPU with its larger tiles
// (graph/vulkan/kernels/matmul.cpp).
#define COOP_ROWS 4
#include "quant/matmul_coopmat.glsl"
