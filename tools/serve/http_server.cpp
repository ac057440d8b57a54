#include "tools/serve/http_server.hpp"

#include <httplib.h>
#include <sys/socket.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <random>

#include "support/error.hpp"
#include "tools/serve/api_error.hpp"
#include "tools/serve/chat_page.hpp"
#include "tools/serve/openai_json.hpp"
#include "tools/serve/prompt.hpp"
#include "tools/serve/stream_channel.hpp"

namespace tessera::serve {
namespace {

using nlohmann::json;

// How long a streamed response may stay silent (a long prompt being read)
// before a comment line goes out: writing is how a closed connection shows,
// and a client that went away cancels its job.
constexpr std::chrono::milliseconds kKeepAlive{500};

int64_t unix_time() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

void send_json(httplib::Response& res, int status, const json& body) {
    res.status = status;
    res.set_content(dump(body), "application/json");
}

ApiError busy_error(Engine::Admission admission, const EngineStats& stats) {
    if (admission == Engine::Admission::ShuttingDown)
        return {.status = 503, .message = "the server is shutting down", .type = "server_error", .code = "shutting_down"};
    return {.status = 503,
            .message = "the server is at capacity: " + std::to_string(stats.slots) + " requests running and " +
                       std::to_string(stats.queue_limit) + " waiting; retry later",
            .type = "server_error",
            .code = "server_busy"};
}

ApiError job_error(const JobResult& result) {
    if (result.finish == FinishReason::Cancelled)
        return {.status = 503, .message = "the request was cancelled: the server is shutting down",
                .type = "server_error", .code = "shutting_down"};
    return {.status = 500, .message = "generation failed: " + result.error, .type = "server_error",
            .code = "internal_error"};
}

}  // namespace

void send_error(httplib::Response& res, const ApiError& error) { send_json(res, error.status, error.to_json()); }

HttpServer::HttpServer(Engine& engine, const tokenizer::Tokenizer& tokenizer, const ChatTemplate& tmpl,
                       HttpOptions options)
    : engine_(engine), tokenizer_(tokenizer), template_(tmpl), options_(std::move(options)),
      server_(std::make_unique<httplib::Server>()), started_(unix_time()) {
    const EngineStats stats = engine_.stats();
    const int threads = options_.threads > 0 ? options_.threads : stats.slots + stats.queue_limit + 8;
    server_->new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
    server_->set_payload_max_length(options_.max_body_bytes);
    // An idle keep-alive connection holds a thread: let it go soon.
    server_->set_keep_alive_timeout(2);
    routes();
}

HttpServer::~HttpServer() = default;

int HttpServer::bind() {
    // A client that closes its connection must not kill the server with SIGPIPE.
    std::signal(SIGPIPE, SIG_IGN);
    // httplib listens with a backlog of 5 connections: a burst of clients
    // (64 connecting at once) overflows it and some get reset. Listening
    // again on the bound socket raises the backlog (Linux keeps the socket).
    int socket_fd = -1;
    server_->set_socket_options([&socket_fd](auto sock) {
        httplib::default_socket_options(sock);
        socket_fd = sock;
    });
    const int port = options_.port == 0 ? server_->bind_to_any_port(options_.host)
                                        : (server_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
    if (port >= 0 && socket_fd >= 0) ::listen(socket_fd, SOMAXCONN);
    if (port < 0)
        throw Error("cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                    " (the address is in use or not this machine's)");
    return port;
}

bool HttpServer::run() { return server_->listen_after_bind(); }

void HttpServer::stop() { server_->stop(); }

bool HttpServer::authorized(const httplib::Request& req, httplib::Response& res) const {
    if (options_.api_key.empty()) return true;
    if (req.get_header_value("Authorization") == "Bearer " + options_.api_key) return true;
    send_error(res, {.status = 401,
                     .message = req.has_header("Authorization") ? "the API key is wrong"
                                                                : "an API key is needed: Authorization: Bearer KEY",
                     .code = "invalid_api_key"});
    return false;
}

void HttpServer::routes() {
    httplib::Server& s = *server_;
    s.Get("/", [](const httplib::Request&, httplib::Response& res) { res.set_content(kChatPage, "text/html; charset=utf-8"); });
    s.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
        const EngineStats st = engine_.stats();
        send_json(res, engine_.shutting_down() ? 503 : 200,
                  {{"status", engine_.shutting_down() ? "shutting down" : "ok"},
                   {"slots", st.slots},
                   {"slots_idle", st.slots - st.busy},
                   {"slots_processing", st.busy},
                   {"queued", st.queued},
                   {"queue_limit", st.queue_limit},
                   {"requests_finished", st.finished},
                   {"requests_cancelled", st.cancelled}});
    });
    s.Get("/v1/models", [this](const httplib::Request& req, httplib::Response& res) {
        if (authorized(req, res)) send_json(res, 200, models_json(options_.model_id, started_, engine_.n_ctx()));
    });
    s.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
        if (authorized(req, res)) generate(Endpoint::Chat, req, res);
    });
    s.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
        if (authorized(req, res)) generate(Endpoint::Completion, req, res);
    });
    // Whatever httplib answers by itself (no route: 404; body too large: 413) in OpenAI's shape too.
    s.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return;
        const std::string what =
            res.status == 404   ? "no such endpoint: " + req.method + " " + req.path
            : res.status == 413 ? "the request body is larger than " + std::to_string(options_.max_body_bytes) + " bytes"
                                : "HTTP error " + std::to_string(res.status);
        send_error(res, {.status = res.status, .message = what, .code = res.status == 404 ? "not_found" : ""});
    });
    s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "internal error";
        try {
            std::rethrow_exception(ep);
        } catch (const std::exception& e) {
            what += std::string(": ") + e.what();
        } catch (...) {
        }
        std::fprintf(stderr, "serve: %s\n", what.c_str());
        send_error(res, {.status = 500, .message = what, .type = "server_error", .code = "internal_error"});
    });
}

void HttpServer::generate(Endpoint endpoint, const httplib::Request& req, httplib::Response& res) {
    ParsedRequest parsed = parse_request(endpoint, req.body);
    if (const ApiError* error = std::get_if<ApiError>(&parsed)) return send_error(res, *error);
    const Request& r = std::get<Request>(parsed);
    if (!r.model.empty() && r.model != options_.model_id)
        return send_error(res, {.status = 404,
                                .message = "the model '" + r.model + "' does not exist; this server has '" +
                                           options_.model_id + "'",
                                .code = "model_not_found",
                                .param = "model"});
    PromptTokens prompt = prompt_tokens(r, tokenizer_, template_, engine_.n_ctx());
    if (const ApiError* error = std::get_if<ApiError>(&prompt)) return send_error(res, *error);

    auto job = std::make_shared<Job>();
    job->prompt = std::move(std::get<std::vector<int32_t>>(prompt));
    job->sampling = r.sampling;
    job->sampling.seed = r.seed ? *r.seed : std::random_device{}();
    job->max_tokens = r.max_tokens;
    job->stop = r.stop;
    auto channel = std::make_shared<StreamChannel>();
    job->on_text = [channel](std::string_view text) { channel->push_text(text); };
    job->on_done = [channel](const JobResult& result) { channel->finish(result); };
    const Engine::Admission admission = engine_.submit(job);
    if (admission != Engine::Admission::Accepted) return send_error(res, busy_error(admission, engine_.stats()));

    const ResponseHead head{.endpoint = endpoint,
                            .id = (endpoint == Endpoint::Chat ? "chatcmpl-" : "cmpl-") + std::to_string(started_) +
                                  "-" + std::to_string(next_id_++),
                            .created = unix_time(),
                            .model = options_.model_id};
    if (!r.stream) {
        // httplib 0.11 cannot tell this thread that the client left: the job
        // runs to its end (bounded by max_tokens and the context).
        std::string text;
        for (;;) {
            StreamChannel::Taken taken = channel->take(std::chrono::seconds(1));
            text += taken.text;
            if (!taken.done) continue;
            if (taken.done->finish == FinishReason::Error || taken.done->finish == FinishReason::Cancelled)
                return send_error(res, job_error(*taken.done));
            return send_json(res, 200, completion_json(head, text, *taken.done));
        }
    }

    res.set_header("Cache-Control", "no-cache");
    auto started = std::make_shared<bool>(false);
    const bool include_usage = r.include_usage;
    res.set_chunked_content_provider(
        "text/event-stream",
        [channel, job, head, started, include_usage](size_t, httplib::DataSink& sink) {
            const auto send = [&](const std::string& data) {
                if (sink.write(data.data(), data.size())) return true;
                job->cancelled = true;  // the client is gone
                return false;
            };
            if (!*started) {
                *started = true;
                // OpenAI's first chat chunk names the role; completions start with text.
                if (head.endpoint == Endpoint::Chat) return send(sse_event(chunk_json(head, "", nullptr, true)));
            }
            const StreamChannel::Taken taken = channel->take(kKeepAlive);
            if (!taken.done) return send(taken.text.empty() ? ": keep-alive\n\n" : sse_event(chunk_json(head, taken.text, nullptr)));
            const JobResult& result = *taken.done;
            bool ok = true;
            if (result.finish == FinishReason::Error || result.finish == FinishReason::Cancelled) {
                if (!taken.text.empty()) ok = send(sse_event(chunk_json(head, taken.text, nullptr)));
                ok = ok && send(sse_event(job_error(result).to_json()));
            } else {
                ok = send(sse_event(chunk_json(head, taken.text, &result)));
                if (ok && include_usage) ok = send(sse_event(usage_chunk_json(head, result)));
            }
            if (!ok || !send("data: [DONE]\n\n")) return false;
            sink.done();
            return true;
        },
        [job](bool success) {
            if (!success) job->cancelled = true;
        });
}

}  // namespace tessera::serve
