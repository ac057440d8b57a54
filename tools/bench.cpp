// `tessera bench -m MODEL [-p 512] [-n 128] [-d 0] [-r 5] [-t THREADS] [-o md|json|csv]`:
// prompt processing (pp: -p tokens in one pass) and generation (tg: -n
// tokens one at a time), each after -d tokens already in the cache (filled
// untimed before every repetition; 0: an empty context), tok/s as mean and
// standard deviation over -r repetitions after -w untimed warm-up runs (1, as
// llama-bench; a GPU may still be raising its clocks during the first ones:
// --warmup-time adds warm-ups until they have lasted that long). --profile
// prints per-node times and the wall time of each step of a pass.
// The table follows llama-bench's layout and the JSON its field names, so
// that results of the two can be read side by side.
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <numeric>
#include <span>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "kernels/simd/archs.hpp"
#include "models/quantize_model.hpp"
#include "support/error.hpp"
#include "tessera/build_commit.hpp"
#include "tools/commands.hpp"
#include "tools/model_input.hpp"

namespace tessera::cli {
namespace {

struct BenchOptions {
    ModelInput in;
    int n_prompt = 512, n_gen = 128, n_depth = 0, reps = 5, warmups = 1;
    double warmup_seconds = 0;
    std::string output = "md";
    bool profile = false;
};

struct TestResult {
    std::string name;  // "pp512", "tg128", "tg128 @ d4096"
    int n_prompt = 0, n_gen = 0;
    int warmups = 0;  // untimed runs before the timed ones
    std::vector<double> seconds;

    int tokens() const { return n_prompt + n_gen; }
    std::vector<double> rates() const {
        std::vector<double> r;
        for (double s : seconds) r.push_back(double(tokens()) / s);
        return r;
    }
};

double mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size()); }
double stddev(const std::vector<double>& v) {
    if (v.size() < 2) return 0.0;
    const double m = mean(v);
    double sum = 0.0;
    for (double x : v) sum += (x - m) * (x - m);
    return std::sqrt(sum / double(v.size() - 1));
}

// Token ids for the benchmark: BOS, then a fixed spread over the vocabulary.
// The id each test starts from: the model's BOS (none: -1), checked against
// the vocabulary before it is narrowed, so that 2^32 + 1 is not read as 1.
int32_t first_token(const model::Model& m) {
    constexpr const char* kKey = "tokenizer.ggml.bos_token_id";
    const uint64_t id = m.file().get_uint(kKey, 1);
    if (id == 0xFFFFFFFFu) return -1;  // what some converters write for "none"
    if (id >= uint64_t(m.hparams().n_vocab))
        throw Error(m.file().name() + ": " + kKey + " = " + std::to_string(id) + " is not a token id (the vocabulary has " +
                    std::to_string(m.hparams().n_vocab) + " tokens)");
    return int32_t(id);
}

std::vector<int32_t> bench_tokens(int n, int64_t n_vocab, int32_t bos) {
    std::vector<int32_t> t(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) t[size_t(i)] = i == 0 && bos >= 0 ? bos : int32_t(3 + (int64_t(i) * 7919) % (n_vocab - 3));
    return t;
}

// "pp512: 2/5" on stderr, over the line before (padded to cover a longer one).
void progress(const std::string& what, int done, int total) {
    const std::string line = what + " " + std::to_string(done) + "/" + std::to_string(total);
    std::fprintf(stderr, "\r%-32s", line.c_str());
}

// One test after `depth` in the cache (untimed): `prompt` in one pass (pp),
// or `generated` one token per pass (tg). Each pass leaves its logits where
// the host can read them, unread, as llama-bench's passes do (copying a large
// vocabulary's logits cost a GPU token up to a tenth: docs/benchmarks.md).
double time_pass(model::Session& session, const std::vector<int32_t>& depth, const std::vector<int32_t>& prompt,
                 const std::vector<int32_t>& generated) {
    session.reset();
    if (!depth.empty()) session.eval_in_place(depth);
    const auto t0 = std::chrono::steady_clock::now();
    if (!prompt.empty()) session.eval_in_place(prompt);
    for (int32_t token : generated) session.eval_in_place(std::span(&token, 1));
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string cpu_name() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.starts_with("model name")) return line.substr(line.find(':') + 2);
    return "unknown";
}

struct ModelFacts {
    std::string filename, type;  // type as llama-bench writes model_type, e.g. "llama 1.1B Q4_0"
    std::string backend, gpu;    // "CPU" or "Vulkan"; the devices' names
    uint64_t size = 0, n_params = 0;
};

ModelFacts model_facts(const model::Model& m, const std::string& path) {
    ModelFacts f{.filename = path};
    for (const auto& t : m.file().tensors()) {
        f.size += t.data.size();
        f.n_params += std::accumulate(t.ne.begin(), t.ne.end(), uint64_t{1}, std::multiplies<>());
    }
    const auto ftype = m.file().find("general.file_type");
    std::string type_name = ftype ? file_type_name(uint32_t(ftype->as_uint().value_or(~0u))) : "?";
    char size_label[32];
    if (f.n_params >= 1'000'000'000)
        std::snprintf(size_label, sizeof size_label, "%.1fB", double(f.n_params) / 1e9);
    else
        std::snprintf(size_label, sizeof size_label, "%.0fM", double(f.n_params) / 1e6);
    f.type = std::string(m.architecture().name) + " " + size_label + " " + type_name;
    return f;
}

// llama-bench's spelling of a backend.
std::string backend_label(std::string_view name) { return name == "vulkan" ? "Vulkan" : "CPU"; }

void print_markdown(const ModelFacts& f, int threads, const std::vector<TestResult>& results) {
    std::printf("| model                          |       size |     params | backend    | threads |          test |                  t/s |\n");
    std::printf("| ------------------------------ | ---------: | ---------: | ---------- | ------: | ------------: | -------------------: |\n");
    for (const auto& r : results) {
        char size[32], params[32], ts[48];
        std::snprintf(size, sizeof size, "%.2f MiB", double(f.size) / (1 << 20));
        std::snprintf(params, sizeof params, "%.2f B", double(f.n_params) / 1e9);
        std::snprintf(ts, sizeof ts, "%.2f ± %.2f", mean(r.rates()), stddev(r.rates()));
        std::printf("| %-30s | %10s | %10s | %-10s | %7d | %13s | %20s |\n", f.type.c_str(), size, params, f.backend.c_str(), threads,
                    r.name.c_str(), ts);
    }
    std::printf("\nbuild: %s\n", TESSERA_BUILD_COMMIT);
    std::printf("CPU kernels: %s\n", std::string(simd::active_arch_name()).c_str());
}

nlohmann::json to_json(const BenchOptions& o, const ModelFacts& f, int threads, const TestResult& r) {
    std::vector<double> ns;
    for (double s : r.seconds) ns.push_back(s * 1e9);
    char now[32];
    const std::time_t t = std::time(nullptr);
    std::strftime(now, sizeof now, "%FT%TZ", std::gmtime(&t));
    return {{"build_commit", TESSERA_BUILD_COMMIT},
            {"cpu_info", cpu_name()},
            {"cpu_kernels", std::string(simd::active_arch_name())},
            {"backends", f.backend},
            {"gpu_info", f.gpu},
            {"model_filename", f.filename},
            {"model_type", f.type},
            {"model_size", f.size},
            {"model_n_params", f.n_params},
            {"n_batch", o.in.batch},
            {"n_threads", threads},
            {"type_k", o.in.kv_type},
            {"type_v", o.in.kv_type},
            {"activations", o.in.activations},
            {"n_prompt", r.n_prompt},
            {"n_gen", r.n_gen},
            {"n_depth", o.n_depth},
            {"n_warmup", r.warmups},
            {"test_time", now},
            {"avg_ns", uint64_t(mean(ns))},
            {"stddev_ns", uint64_t(stddev(ns))},
            {"avg_ts", mean(r.rates())},
            {"stddev_ts", stddev(r.rates())},
            {"samples_ns", ns},
            {"samples_ts", r.rates()}};
}

// A CSV field (RFC 4180): strings, and arrays as their items joined by
// commas, in double quotes with quotes doubled; numbers as they are.
std::string csv_field(const nlohmann::json& v) {
    if (!v.is_string() && !v.is_array()) return v.dump();
    std::string text;
    if (v.is_string()) {
        text = v.get<std::string>();
    } else {
        for (const auto& item : v) text += (text.empty() ? "" : ",") + item.dump();
    }
    std::string quoted = "\"";
    for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

void run_bench(const BenchOptions& o) {
    if (o.reps < 1) throw Error("-r must be at least 1");
    if (o.warmups < 0) throw Error("-w must be >= 0");
    if (!(o.warmup_seconds >= 0)) throw Error("--warmup-time must be >= 0");
    if (o.n_prompt < 0 || o.n_gen < 0 || o.n_prompt + o.n_gen == 0) throw Error("-p and -n must be >= 0, not both 0");
    if (o.n_depth < 0) throw Error("-d must be >= 0");
    const auto m = open_model(o.in);
    model::SessionOptions options = session_options(o.in, *m);
    const int positions = o.n_depth + std::max(o.n_prompt, o.n_gen);
    options.n_ctx = std::max<int64_t>(options.n_ctx, positions);
    options.batch = std::max<int64_t>(options.batch, o.n_prompt);
    options.profile = o.profile;
    model::Session session(*m, options);
    if (positions > session.n_ctx())
        throw Error("the test needs " + std::to_string(positions) + " positions but the model's context is " +
                    std::to_string(session.n_ctx()));
    const int threads = o.in.threads > 0 ? o.in.threads : omp_get_max_threads();
    const int32_t bos = first_token(*m);

    const std::string at_depth = o.n_depth > 0 ? " @ d" + std::to_string(o.n_depth) : "";
    std::vector<TestResult> results;
    if (o.n_prompt > 0) results.push_back({.name = "pp" + std::to_string(o.n_prompt) + at_depth, .n_prompt = o.n_prompt});
    if (o.n_gen > 0) results.push_back({.name = "tg" + std::to_string(o.n_gen) + at_depth, .n_gen = o.n_gen});
    const std::vector<int32_t> depth = bench_tokens(o.n_depth, m->hparams().n_vocab, bos);
    const int32_t first = o.n_depth > 0 ? -1 : bos;  // after a depth the tests continue the context: no second BOS
    for (TestResult& r : results) {
        const std::vector<int32_t> prompt = bench_tokens(r.n_prompt, m->hparams().n_vocab, first);
        const std::vector<int32_t> generated = bench_tokens(r.n_gen, m->hparams().n_vocab, first);
        const auto run_once = [&] {
            const double seconds = time_pass(session, depth, prompt, generated);
            print_notice(session);  // the first pass's (a fallback, say), before any progress line
            return seconds;
        };
        double warm = 0;  // seconds the warm-ups took
        for (; r.warmups < o.warmups || warm < o.warmup_seconds; ++r.warmups) {
            warm += run_once();
            if (r.warmups < o.warmups) {
                progress(r.name + ": warm-up", r.warmups + 1, o.warmups);
            } else {  // --warmup-time's
                char line[64];
                std::snprintf(line, sizeof line, "%s: warm-up %d, %.1f s", r.name.c_str(), r.warmups + 1, warm);
                std::fprintf(stderr, "\r%-32s", line);
            }
        }
        session.reset_profile();
        for (int rep = 0; rep < o.reps; ++rep) {
            r.seconds.push_back(run_once());
            progress(r.name + ":", rep + 1, o.reps);
        }
        std::fprintf(stderr, "\n");
        if (const auto work = session.backend().last_recorded_work())
            std::fprintf(stderr, "%s: %u dispatches, %u barriers in the last pass's command buffer\n", r.name.c_str(),
                         work->dispatches, work->barriers);
        if (o.profile) {
            std::ostringstream table;
            session.profile().print(table);
            std::fprintf(stderr, "%s, per pass over the timed repetitions:\n%s", r.name.c_str(), table.str().c_str());
        }
        std::fflush(stderr);
    }

    ModelFacts facts = model_facts(*m, o.in.model);
    facts.backend = backend_label(session.backend().name());
    for (const auto& b : session.backends())  // a model split between devices names each
        if (!b->host_addressable()) facts.gpu += (facts.gpu.empty() ? "" : " + ") + b->device_name();
    if (o.output == "md") {
        print_markdown(facts, threads, results);
    } else if (o.output == "json") {
        nlohmann::json all = nlohmann::json::array();
        for (const auto& r : results) all.push_back(to_json(o, facts, threads, r));
        std::printf("%s\n", all.dump(2).c_str());
    } else {  // the JSON's fields, in its order, one row per test
        bool header = true;
        for (const auto& r : results) {
            const nlohmann::json j = to_json(o, facts, threads, r);
            std::string names, values;
            for (const auto& [name, v] : j.items()) {
                names += (names.empty() ? "" : ",") + name;
                values += (values.empty() ? "" : ",") + csv_field(v);
            }
            if (std::exchange(header, false)) std::printf("%s\n", names.c_str());
            std::printf("%s\n", values.c_str());
        }
    }
}

}  // namespace

void add_bench_command(CLI::App& app) {
    auto o = std::make_shared<BenchOptions>();
    auto* cmd = app.add_subcommand("bench", "Prompt-processing and generation speed (tok/s), llama-bench style");
    add_model_options(*cmd, o->in);
    cmd->add_option("-p,--n-prompt", o->n_prompt, "Prompt tokens, processed in one pass (0: skip)")->capture_default_str();
    cmd->add_option("-n,--n-gen", o->n_gen, "Generated tokens, one pass each (0: skip)")->capture_default_str();
    cmd->add_option("-d,--n-depth", o->n_depth, "Tokens in the cache before each test, filled untimed (0: an empty context)")
        ->capture_default_str();
    cmd->add_option("-r,--repetitions", o->reps, "Timed repetitions of each test")->capture_default_str();
    cmd->add_option("-w,--warmup", o->warmups,
                    "Untimed runs of each test before the timed ones (llama-bench: 1; a GPU may still be raising its clocks "
                    "during the first)")
        ->capture_default_str();
    cmd->add_option("--warmup-time", o->warmup_seconds,
                    "After the -w warm-ups, more until the warm-ups have taken this many seconds (0: none). A GPU "
                    "raises its clocks over a second or more of work, longer when a model split over devices "
                    "(--devices) leaves each idle half of a pass: 3 gives steady rates on H200s")
        ->capture_default_str();
    cmd->add_flag("--profile", o->profile,
                  "Print each test's per-node times and the wall time of each step of a pass (planning, segments) to "
                  "stderr; timing every node adds to the rates")
        ->capture_default_str();
    cmd->add_option("-o,--output", o->output, "md, json or csv")
        ->check(CLI::IsMember({"md", "json", "csv"}))
        ->capture_default_str();
    cmd->callback([o] { run_bench(*o); });
}

}  // namespace tessera::cli
