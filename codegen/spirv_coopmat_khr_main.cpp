// tessera_spirv_coopmat_khr IN.spv OUT.h NAME: the module with its NV
// cooperative matrices rewritten as KHR ones (codegen/spirv_coopmat_khr.hpp),
// written as a C header holding `NAME`. Run by codegen/shaders.cmake.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "codegen/spirv_coopmat_khr.hpp"

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: tessera_spirv_coopmat_khr IN.spv OUT.h NAME\n");
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "tessera_spirv_coopmat_khr: cannot read %s\n", argv[1]);
        return 1;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() % 4 != 0) {
        std::fprintf(stderr, "tessera_spirv_coopmat_khr: %s is not a whole number of words\n", argv[1]);
        return 1;
    }
    std::vector<uint32_t> words(bytes.size() / 4);
    for (size_t i = 0; i < words.size(); ++i)
        for (size_t b = 0; b < 4; ++b) words[i] |= uint32_t(uint8_t(bytes[4 * i + b])) << (8 * b);
    try {
        const std::string header = tessera::codegen::spirv_header(tessera::codegen::rewrite_coopmat_khr(words), argv[3]);
        std::ofstream out(argv[2], std::ios::binary);
        out << header;
        if (!out) {
            std::fprintf(stderr, "tessera_spirv_coopmat_khr: cannot write %s\n", argv[2]);
            return 1;
        }
    } catch (const tessera::codegen::SpirvRewriteError& e) {
        std::fprintf(stderr, "tessera_spirv_coopmat_khr: %s: %s\n", argv[1], e.what());
        return 1;
    }
    return 0;
}
