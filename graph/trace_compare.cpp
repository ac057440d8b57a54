#include "graph/trace_compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/error.hpp"

namespace tessera {

namespace {

nlohmann::json read_index(const std::string& dir) {
    std::ifstream in(dir + "/index.json");
    if (!in) throw Error("'" + dir + "' is not a trace directory (no index.json)");
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw Error(dir + "/index.json: " + e.what());
    }
}

std::vector<float> read_values(const std::string& dir, const nlohmann::json& entry) {
    const std::string path = dir + "/" + entry.at("file").get<std::string>();
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read trace file '" + path + "'");
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path, ec);
    std::vector<float> v(ec ? 0 : size_t(bytes / 4));
    in.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * 4));
    return v;
}

}  // namespace

TraceComparison compare_traces(const std::string& dir_a, const std::string& dir_b, double nmse_tolerance) {
    const nlohmann::json a = read_index(dir_a), b = read_index(dir_b);
    TraceComparison result;
    for (const nlohmann::json& ea : a) {
        NodeDifference d;
        d.name = ea.at("name").get<std::string>();
        d.op = ea.at("op").get<std::string>();
        d.shape = ea.at("shape").get<std::vector<int64_t>>();
        const auto eb = std::find_if(b.begin(), b.end(), [&](const nlohmann::json& e) { return e.at("name") == d.name; });
        d.in_both = eb != b.end();
        if (d.in_both) {
            d.same_shape = eb->at("shape").get<std::vector<int64_t>>() == d.shape;
            const std::vector<float> va = read_values(dir_a, ea), vb = read_values(dir_b, *eb);
            d.same_shape = d.same_shape && va.size() == vb.size();
            if (d.same_shape) {
                double err = 0, norm = 0;
                for (size_t i = 0; i < va.size(); ++i) {
                    const double diff = double(va[i]) - double(vb[i]);
                    err += diff * diff;
                    norm += double(va[i]) * double(va[i]);
                    d.max_abs = std::max(d.max_abs, std::fabs(diff));
                }
                d.nmse = norm > 0 ? err / norm : err;
                if (std::isnan(d.nmse)) d.nmse = INFINITY;
            }
        }
        d.diverged = !d.in_both || !d.same_shape || d.nmse > nmse_tolerance;
        if (d.diverged && result.first_divergence < 0) result.first_divergence = int(result.nodes.size());
        result.nodes.push_back(std::move(d));
    }
    return result;
}

}  // namespace tessera
