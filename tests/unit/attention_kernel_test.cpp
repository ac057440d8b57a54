// attention() against the op's reference (ops::kAttention): F32 and F16 K/V,
// grouped-query ratios 1-8, generation / prompt / continued-prompt positions,
// odd sizes, position- and head-major caches with padded strides, teams of
// 1-3 threads. Error metric: NMSE = sum((out - ref)^2) / sum(ref^2).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu/attention.hpp"
#include "kernels/cpu/attention_kernel.hpp"
#include "kernels/quant/half.hpp"
#include "op_reference.hpp"
#include "ops/attention.hpp"
#include "ops/view.hpp"
#include "support/error.hpp"

namespace tessera {
namespace {

using cpu::AttentionArgs;

// Float order only: the kernel sums in float, the reference in double
// (docs/cpu-attention.md has the values measured on these shapes).
constexpr double kExactNmse = 1e-11;
// round_like_ggml against the reference: what the F16 rounding of q and the
// probabilities costs (docs/cpu-attention.md).
constexpr double kRoundedVsExactNmse = 5e-7;

enum class Layout { PositionMajor, HeadMajor };

struct Shape {
    int64_t head_dim, n_head, n_head_kv, n_q, n_kv;
    int32_t first_pos;  // q_pos[i] = first_pos + i
    GgmlType kv_type;
    Layout layout;
    float scale_factor = 1.0f;  // scale = scale_factor / sqrt(head_dim)
};

// Owns the tensors of one attention problem; strides are padded so rows are
// neither contiguous nor aligned.
class Problem {
public:
    explicit Problem(const Shape& s, uint32_t seed = 1) : shape_(s) {
        std::mt19937 rng(seed);
        std::normal_distribution<float> dist;
        const int64_t d = s.head_dim, pad = 3;
        q_.resize(size_t(s.n_q * (s.n_head * d + pad)));
        for (auto& x : q_) x = dist(rng);
        const size_t elem = s.kv_type == GgmlType::F16 ? 2 : 4;
        size_t pos_stride, head_stride, n_elems;
        if (s.layout == Layout::PositionMajor) {
            pos_stride = size_t(s.n_head_kv * d + pad);
            head_stride = size_t(d);
            n_elems = size_t(std::max<int64_t>(1, s.n_kv)) * pos_stride;
        } else {
            pos_stride = size_t(d + pad);
            head_stride = size_t(s.n_kv) * pos_stride + pad;
            n_elems = size_t(s.n_head_kv) * head_stride;
        }
        k_ = random_kv(n_elems, s.kv_type, rng);
        v_ = random_kv(n_elems, s.kv_type, rng);
        pos_.resize(size_t(s.n_q));
        for (int64_t i = 0; i < s.n_q; ++i) pos_[i] = s.first_pos + int32_t(i);
        out_.assign(size_t(s.n_q * s.n_head * (d + pad)), std::numeric_limits<float>::quiet_NaN());

        a_.q = q_.data();
        a_.q_token_stride = size_t(s.n_head * d + pad) * 4;
        a_.q_head_stride = size_t(d) * 4;
        a_.n_q = s.n_q;
        a_.n_head = s.n_head;
        a_.head_dim = d;
        a_.k = k_.data();
        a_.v = v_.data();
        a_.k_pos_stride = a_.v_pos_stride = pos_stride * elem;
        a_.k_head_stride = a_.v_head_stride = head_stride * elem;
        a_.kv_type = s.kv_type;
        a_.n_kv = s.n_kv;
        a_.n_head_kv = s.n_head_kv;
        a_.q_pos = pos_.data();
        a_.scale = s.scale_factor / std::sqrt(float(d));
        a_.out = out_.data();
        a_.out_head_stride = size_t(d + pad) * 4;  // head-major output
        a_.out_token_stride = size_t(s.n_head * (d + pad)) * 4;
    }

    AttentionArgs& args() { return a_; }
    std::vector<int32_t>& positions() { return pos_; }

    // The n_q x n_head x head_dim outputs, without the stride padding.
    std::vector<float> outputs() const {
        std::vector<float> r;
        for (int64_t i = 0; i < shape_.n_q; ++i)
            for (int64_t h = 0; h < shape_.n_head; ++h)
                for (int64_t d = 0; d < shape_.head_dim; ++d)
                    r.push_back(out_[(a_.out_token_stride * i + a_.out_head_stride * h) / 4 + d]);
        return r;
    }

    // The op's definition over this problem's tensors (their strided views).
    std::vector<float> reference() const {
        const Shape& s = shape_;
        return test::reference_values([&](Graph& g) {
            Tensor* q = view(g.weight("q", GgmlType::F32, {int64_t(q_.size()), 1, 1, 1}, q_.data()),
                             {s.head_dim, s.n_head, s.n_q, 1}, {4, a_.q_head_stride, a_.q_token_stride, q_.size() * 4});
            auto kv = [&](const char* name, const std::vector<std::byte>& data, size_t pos_stride, size_t head_stride) {
                const size_t elem = s.kv_type == GgmlType::F16 ? 2 : 4;
                return view(g.weight(name, s.kv_type, {int64_t(data.size() / elem), 1, 1, 1}, data.data()),
                            {s.head_dim, s.n_kv, s.n_head_kv, 1}, {elem, pos_stride, head_stride, data.size()});
            };
            Tensor* positions = g.weight("positions", GgmlType::I32, {s.n_q, 1, 1, 1}, pos_.data());
            return attention(q, kv("k", k_, a_.k_pos_stride, a_.k_head_stride),
                             kv("v", v_, a_.v_pos_stride, a_.v_head_stride), positions, a_.scale);
        });
    }

    std::vector<float> kernel(int threads, bool round_like_ggml = false) {
        AttentionArgs a = a_;
        a.round_like_ggml = round_like_ggml;
        std::vector<std::byte> work(cpu::attention_work_bytes(a, threads));
        cpu::run_team(threads, [&](const cpu::ThreadTeam& team) { cpu::attention(a, work.data(), team); });
        std::vector<float> r = outputs();
        std::fill(out_.begin(), out_.end(), std::numeric_limits<float>::quiet_NaN());
        return r;
    }

private:
    static std::vector<std::byte> random_kv(size_t n, GgmlType type, std::mt19937& rng) {
        std::normal_distribution<float> dist;
        std::vector<std::byte> bytes(n * (type == GgmlType::F16 ? 2 : 4));
        for (size_t i = 0; i < n; ++i) {
            const float x = dist(rng);
            if (type == GgmlType::F16)
                reinterpret_cast<uint16_t*>(bytes.data())[i] = fp32_to_fp16(x);
            else
                reinterpret_cast<float*>(bytes.data())[i] = x;
        }
        return bytes;
    }

    Shape shape_;
    AttentionArgs a_;
    std::vector<float> q_, out_;
    std::vector<std::byte> k_, v_;
    std::vector<int32_t> pos_;
};

// NaN (an output never written) makes the result NaN, which fails every bound.
double nmse(const std::vector<float>& out, const std::vector<float>& ref) {
    double err = 0.0, norm = 0.0;
    for (size_t i = 0; i < ref.size(); ++i) {
        err += (double(out[i]) - ref[i]) * (double(out[i]) - ref[i]);
        norm += double(ref[i]) * ref[i];
    }
    return norm > 0.0 ? err / norm : err;
}

struct Heads {
    int64_t head_dim, n_head, n_head_kv;
};
// Group sizes 1, 2, 4 and 8, head_dim shorter than, equal to and not a multiple of a vector.
constexpr Heads kHeads[] = {{8, 1, 1}, {64, 4, 2}, {48, 8, 1}, {64, 8, 8}, {48, 4, 4}, {8, 8, 2}, {64, 8, 4}};

enum class Positions { Generation, Prompt, Continuation };

Shape make_shape(const Heads& h, Positions p, int64_t n_kv, GgmlType type, Layout layout) {
    switch (p) {
        case Positions::Generation: return {h.head_dim, h.n_head, h.n_head_kv, 1, n_kv, int32_t(n_kv - 1), type, layout};
        case Positions::Prompt: return {h.head_dim, h.n_head, h.n_head_kv, n_kv, n_kv, 0, type, layout};
        case Positions::Continuation: {
            const int64_t n_q = (n_kv + 1) / 2;
            return {h.head_dim, h.n_head, h.n_head_kv, n_q, n_kv, int32_t(n_kv - n_q), type, layout};
        }
    }
    return {};
}

TEST(AttentionKernel, MatchesReference) {
    for (GgmlType type : {GgmlType::F32, GgmlType::F16})
        for (Layout layout : {Layout::PositionMajor, Layout::HeadMajor})
            for (const Heads& h : kHeads)
                for (Positions p : {Positions::Generation, Positions::Prompt, Positions::Continuation})
                    for (int64_t n_kv : {1, 7, 33, 130}) {
                        Problem problem(make_shape(h, p, n_kv, type, layout));
                        const std::vector<float> ref = problem.reference();
                        for (int threads : {1, 2, 3}) {
                            const double e = nmse(problem.kernel(threads), ref);
                            EXPECT_LE(e, kExactNmse)
                                << (type == GgmlType::F16 ? "F16" : "F32") << " layout " << int(layout) << " head_dim "
                                << h.head_dim << " heads " << h.n_head << "/" << h.n_head_kv << " positions "
                                << int(p) << " n_kv " << n_kv << " threads " << threads;
                        }
                    }
}

// Large scores: the running max changes often and most probabilities underflow.
TEST(AttentionKernel, SharpSoftmaxMatchesReference) {
    for (GgmlType type : {GgmlType::F32, GgmlType::F16}) {
        Shape s{64, 8, 2, 130, 130, 0, type, Layout::PositionMajor, 12.0f};
        Problem problem(s);
        EXPECT_LE(nmse(problem.kernel(2), problem.reference()), kExactNmse);
    }
}

// A prompt long enough for many KV tiles and query blocks per thread.
TEST(AttentionKernel, LongPromptMatchesReference) {
    Problem problem({64, 4, 2, 1024, 1024, 0, GgmlType::F16, Layout::PositionMajor});
    const std::vector<float> ref = problem.reference();
    for (int threads : {1, 3}) EXPECT_LE(nmse(problem.kernel(threads), ref), kExactNmse) << threads;
}

TEST(AttentionKernel, GgmlRoundingIsCloseToExact) {
    for (Positions p : {Positions::Generation, Positions::Prompt, Positions::Continuation}) {
        Problem problem(make_shape({64, 8, 2}, p, 130, GgmlType::F16, Layout::PositionMajor));
        const double vs_exact = nmse(problem.kernel(2, true), problem.reference());
        EXPECT_LE(vs_exact, kRoundedVsExactNmse) << int(p);
        EXPECT_GT(vs_exact, kExactNmse) << "rounding had no effect, positions " << int(p);
    }
}

// With F32 K/V there is nothing to round like ggml: the flag changes nothing.
TEST(AttentionKernel, GgmlRoundingIgnoredForF32) {
    Problem problem(make_shape({64, 4, 2}, Positions::Prompt, 33, GgmlType::F32, Layout::HeadMajor));
    EXPECT_EQ(problem.kernel(1, true), problem.kernel(1, false));
}

TEST(AttentionKernel, QueryThatSeesNothingGetsZeros) {
    Problem problem(make_shape({64, 4, 2}, Positions::Prompt, 33, GgmlType::F16, Layout::PositionMajor));
    problem.positions()[0] = -1;
    problem.positions()[20] = -5;
    const std::vector<float> ref = problem.reference();
    const std::vector<float> out = problem.kernel(2);
    EXPECT_LE(nmse(out, ref), kExactNmse);
    for (int64_t i : {0, 20})
        for (int64_t e = 0; e < 4 * 64; ++e) EXPECT_EQ(out[size_t(i * 4 * 64 + e)], 0.0f) << i;
}

TEST(AttentionKernel, EmptyCacheGivesZeros) {
    Problem problem({64, 4, 2, 3, 0, 0, GgmlType::F32, Layout::PositionMajor});
    for (float x : problem.kernel(2)) EXPECT_EQ(x, 0.0f);
}

// The fallback of portable builds on CPUs without SSE4.2 (never picked by dispatch here).
TEST(AttentionKernel, ScalarFallbackMatchesReference) {
    for (GgmlType type : {GgmlType::F32, GgmlType::F16})
        for (Positions p : {Positions::Generation, Positions::Continuation}) {
            Problem problem(make_shape({48, 8, 2}, p, 33, type, Layout::HeadMajor));
            AttentionArgs& a = problem.args();
            const int threads = 2;
            std::vector<std::byte> work(cpu::attention_work_bytes(a, threads));
            const cpu::AttentionPlan plan = cpu::plan_attention(a, threads);
            cpu::run_team(threads, [&](const cpu::ThreadTeam& team) {
                cpu::AttentionKernel{}(simd::Scalar{}, a, plan, work.data(), team);
            });
            const std::vector<float> out = problem.outputs();
            EXPECT_LE(nmse(out, problem.reference()), kExactNmse) << int(type) << " " << int(p);
        }
}

// Scratch is per tile and query block, independent of the sequence length.
TEST(AttentionKernel, WorkSizeDoesNotGrowWithSequence) {
    AttentionArgs a;
    a.n_head = 32;
    a.n_head_kv = 4;
    a.head_dim = 128;
    a.kv_type = GgmlType::F16;
    a.n_q = a.n_kv = 512;
    const size_t short_prompt = cpu::attention_work_bytes(a, 2);
    a.n_q = a.n_kv = 16384;
    EXPECT_EQ(cpu::attention_work_bytes(a, 2), short_prompt);
    EXPECT_LT(short_prompt, size_t(2) << 20);
}

TEST(AttentionKernel, RejectsUnsupportedArguments) {
    Problem problem(make_shape({64, 4, 2}, Positions::Prompt, 7, GgmlType::F32, Layout::PositionMajor));
    AttentionArgs a = problem.args();
    a.kv_type = GgmlType::Q8_0;
    EXPECT_THROW(cpu::attention_work_bytes(a, 1), Error);
    EXPECT_THROW(cpu::attention(a, nullptr, cpu::ThreadTeam{}), Error);
    a = problem.args();
    a.n_head_kv = 3;
    EXPECT_THROW(cpu::attention_work_bytes(a, 1), Error);
}

}  // namespace
}  // namespace tessera
