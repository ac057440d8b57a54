// A `tessera serve` stack in the test process: stories260K (conformance data),
// a BatchEngine, optionally slowed down by PacedEngine (so that a generation
// lasts long enough to disconnect from it or fill the queue), the scheduler
// thread and the HTTP server on a free loopback port; plus the client side:
// requests, server-sent event parsing, and the same greedy generation run
// directly on a model::Session, to compare the server's texts with.
#pragma once

#include <httplib.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "models/gguf/file.hpp"
#include "models/model.hpp"
#include "models/session.hpp"
#include "models/tokenizer/stream_decoder.hpp"
#include "models/tokenizer/tokenizer.hpp"
#include "tools/serve/http_server.hpp"
#include "tools/serve/scheduler.hpp"
#include "tools/serve/batch_engine.hpp"

namespace tessera::serve::test {

// Forwards to an engine, sleeping before each round that has work.
class PacedEngine final : public Engine {
public:
    PacedEngine(Engine& inner, std::chrono::milliseconds pause) : inner_(inner), pause_(pause) {}
    Admission submit(std::shared_ptr<Job> job) override { return inner_.submit(std::move(job)); }
    bool step() override {
        if (!inner_.shutting_down() && inner_.stats().busy + inner_.stats().queued > 0) std::this_thread::sleep_for(pause_);
        return inner_.step();
    }
    void wait_for_work() override { inner_.wait_for_work(); }
    void shutdown() override { inner_.shutdown(); }
    bool shutting_down() const override { return inner_.shutting_down(); }
    EngineStats stats() const override { return inner_.stats(); }
    int64_t n_ctx() const override { return inner_.n_ctx(); }
    std::string runs_on() const override { return inner_.runs_on(); }
    std::string notice() const override { return inner_.notice(); }

private:
    Engine& inner_;
    std::chrono::milliseconds pause_;
};

struct StackOptions {
    int slots = 2;
    size_t queue = 16;
    int64_t n_ctx = 256;
    std::string api_key;
    std::chrono::milliseconds pause{0};  // > 0: a PacedEngine
};

class ServerStack {
public:
    ServerStack(const std::filesystem::path& model_path, StackOptions o)
        : model_(gguf::File::open(model_path.string())), tokenizer_(tokenizer::Tokenizer::from_gguf(model_.file())),
          template_(ChatTemplate::named("chatml")),
          engine_(model_, *tokenizer_,
                  {.slots = o.slots, .queue_limit = o.queue, .session = {.n_ctx = o.n_ctx, .n_threads = 1}}) {
        Engine* engine = &engine_;
        if (o.pause.count() > 0) engine = &paced_.emplace(engine_, o.pause);
        scheduler_.emplace(*engine);
        http_.emplace(*engine, *tokenizer_, template_,
                      HttpOptions{.host = "127.0.0.1", .port = 0, .api_key = o.api_key, .model_id = "stories"});
        port_ = http_->bind();
        thread_ = std::thread([this] { http_->run(); });
    }
    ~ServerStack() {
        scheduler_->stop();
        http_->stop();
        thread_.join();
    }

    int port() const { return port_; }
    const BatchEngine& engine() const { return engine_; }
    const tokenizer::Tokenizer& tokenizer() const { return *tokenizer_; }
    const model::Model& model() const { return model_; }
    std::unique_ptr<httplib::Client> client() const {
        auto c = std::make_unique<httplib::Client>("127.0.0.1", port_);
        c->set_read_timeout(60);
        return c;
    }

    // Greedy generation of up to n tokens after `prompt`, run directly on a Session.
    std::string lone_greedy(const std::vector<int32_t>& prompt, int n, int64_t n_ctx = 256) const {
        model::Session session(model_, {.n_ctx = n_ctx, .n_threads = 1});
        std::vector<float> logits = session.eval(prompt);
        tokenizer::StreamDecoder decoder(*tokenizer_);
        for (const int32_t t : prompt) decoder.push(t);
        std::string text;
        for (int i = 0; i < n; ++i) {
            const int32_t next = int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
            if (next == tokenizer_->vocab().data().eos_id) break;
            text += decoder.push(next);
            logits = session.eval(std::span(&next, 1));
        }
        return text + decoder.finish();
    }

private:
    model::Model model_;
    std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
    ChatTemplate template_;
    BatchEngine engine_;
    std::optional<PacedEngine> paced_;
    std::optional<Scheduler> scheduler_;
    std::optional<HttpServer> http_;
    int port_ = 0;
    std::thread thread_;
};

// The "data:" payloads of a server-sent event stream, in order ("[DONE]" included).
inline std::vector<std::string> sse_data(const std::string& body) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < body.size()) {
        size_t end = body.find("\n\n", pos);
        if (end == std::string::npos) end = body.size();
        const std::string event = body.substr(pos, end - pos);
        if (event.starts_with("data: ")) out.push_back(event.substr(6));
        pos = end + 2;
    }
    return out;
}

// A POST whose response body arrives piece by piece; `on_data` returns false to hang up.
inline httplib::Result post_streaming(httplib::Client& client, const std::string& path, const nlohmann::json& body,
                                      std::function<bool(const std::string&)> on_data) {
    httplib::Request req;
    req.method = "POST";
    req.path = path;
    req.headers = {{"Content-Type", "application/json"}};
    req.body = body.dump();
    req.content_receiver = [on_data](const char* data, size_t n, uint64_t, uint64_t) {
        return on_data(std::string(data, n));
    };
    return client.send(req);
}

}  // namespace tessera::serve::test
