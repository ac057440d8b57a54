#include "tools/serve/service.hpp"

#include <filesystem>

#include "models/gguf/file.hpp"

namespace tessera::serve {
namespace {

HttpOptions with_model_id(HttpOptions http, const model::Model& model) {
    if (http.model_id.empty()) http.model_id = model_id_of(model.file().name());
    return http;
}

}  // namespace

std::string model_id_of(const std::string& path) {
    const std::filesystem::path p(path);
    return p.extension() == ".gguf" ? p.stem().string() : p.filename().string();
}

Service::Service(const model::Model& model, ServiceOptions options)
    : tokenizer_(tokenizer::Tokenizer::from_gguf(model.file())),
      template_(ChatTemplate::for_model(model.file(), options.chat_template)),
      engine_(model, *tokenizer_, options.engine),
      scheduler_(engine_),
      http_(engine_, *tokenizer_, template_, with_model_id(options.http, model)) {}

Service::~Service() { stop(); }

int Service::bind() { return http_.bind(); }

bool Service::run() { return http_.run(); }

void Service::stop() {
    scheduler_.stop();
    http_.stop();
}

}  // namespace tessera::serve
