// The HTTP side of `tessera serve` (cpp-httplib): the OpenAI endpoints, the
// health check and the chat page. Each request is checked (request.hpp,
// prompt.hpp), becomes a Job for the Engine, and is answered from the job's
// StreamChannel: whole, or as server-sent events while it is generated.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "models/chat_template.hpp"
#include "models/tokenizer/tokenizer.hpp"
#include "tools/serve/api_error.hpp"
#include "tools/serve/engine.hpp"
#include "tools/serve/request.hpp"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace tessera::serve {

struct HttpOptions {
    std::string host = "127.0.0.1";
    int port = 8080;      // 0: a free port chosen by the system
    std::string api_key;  // not empty: /v1/ requests need "Authorization: Bearer KEY"
    std::string model_id;  // what /v1/models lists and requests may name
    size_t max_body_bytes = size_t(8) << 20;
    // Connections served at once. Every streamed or waiting request holds
    // one, so this must exceed running plus queued jobs, or a request the
    // server should refuse (503) would wait for a connection instead.
    int threads = 0;  // 0: slots + queue limit + 8
};

class HttpServer {
public:
    HttpServer(Engine& engine, const tokenizer::Tokenizer& tokenizer, const ChatTemplate& tmpl, HttpOptions options);
    ~HttpServer();

    // Binds the socket; returns the port (the chosen one for port 0).
    // Throws tessera::Error when the address cannot be bound.
    int bind();
    // Serves until stop() (another thread). Returns false when listening failed.
    bool run();
    void stop();

private:
    void routes();
    bool authorized(const httplib::Request& req, httplib::Response& res) const;
    void generate(Endpoint endpoint, const httplib::Request& req, httplib::Response& res);

    Engine& engine_;
    const tokenizer::Tokenizer& tokenizer_;
    const ChatTemplate& template_;
    HttpOptions options_;
    std::unique_ptr<httplib::Server> server_;
    const int64_t started_;             // Unix time, the models' "created"
    std::atomic<uint64_t> next_id_{0};  // response ids
};

// Sends `error` as the response (status and OpenAI's JSON shape).
void send_error(httplib::Response& res, const ApiError& error);

}  // namespace tessera::serve
