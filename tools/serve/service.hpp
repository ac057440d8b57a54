// `tessera serve` assembled: a model's tokenizer and chat template, the
// engine, the scheduler thread that drives it and the HTTP server. The
// command (tools/serve_command.cpp) and the tests (tests/unit/serve_*.cpp)
// build the same thing.
#pragma once

#include <memory>
#include <string>

#include "models/chat_template.hpp"
#include "models/model.hpp"
#include "models/tokenizer/tokenizer.hpp"
#include "tools/serve/http_server.hpp"
#include "tools/serve/scheduler.hpp"
#include "tools/serve/batch_engine.hpp"

namespace tessera::serve {

struct ServiceOptions {
    BatchEngineOptions engine;
    HttpOptions http;             // model_id empty: the file's name without .gguf
    std::string chat_template;    // empty: the model's own (ChatTemplate::for_model)
};

class Service {
public:
    Service(const model::Model& model, ServiceOptions options);
    ~Service();

    // Binds the address; returns the port. Throws tessera::Error.
    int bind();
    // Serves until stop() is called from another thread; false when listening failed.
    bool run();
    // Ends every job (running and queued: Cancelled), then the HTTP server.
    void stop();

    const Engine& engine() const { return engine_; }
    const ChatTemplate& chat_template() const { return template_; }
    const tokenizer::Tokenizer& tokenizer() const { return *tokenizer_; }

private:
    std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
    ChatTemplate template_;
    BatchEngine engine_;
    Scheduler scheduler_;
    HttpServer http_;
};

// The id a model file is served under: its file name without the directory and ".gguf".
std::string model_id_of(const std::string& path);

}  // namespace tessera::serve
