// `tessera serve -m MODEL [--host H] [--port P] [--parallel N] [--queue N] [--api-key KEY] ...`:
// an OpenAI-compatible HTTP server (tools/serve/, docs/server.md). Prints
// its URL on stderr and serves until Ctrl-C or SIGTERM, which end the
// running requests and stop it cleanly.
#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include "support/error.hpp"
#include "tools/commands.hpp"
#include "tools/model_input.hpp"
#include "tools/serve/service.hpp"

namespace tessera::cli {
namespace {

struct ServeOptions {
    ModelInput in;
    std::string host = "127.0.0.1";
    int port = 8080;
    int parallel = 1;
    int queue = 64;
    bool no_warmup = false;
    std::string api_key, alias, chat_template;
};

sigset_t stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
}

void serve(const ServeOptions& o) {
    // Blocked before any thread starts, so that every thread inherits the
    // block and the signals wait for the sigwait below.
    const sigset_t signals = stop_signals();
    ::pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    const auto m = open_model(o.in);
    serve::ServiceOptions options{
        .engine = {.slots = o.parallel,
                   .queue_limit = size_t(o.queue),
                   .session = session_options(o.in, *m),
                   .warm_up = !o.no_warmup},
        .http = {.host = o.host, .port = o.port, .api_key = o.api_key, .model_id = o.alias},
        .chat_template = o.chat_template};
    serve::Service service(*m, options);
    if (!service.chat_template().warning().empty())
        std::fprintf(stderr, "warning: %s\n", service.chat_template().warning().c_str());
    const std::string notice = service.engine().notice();
    for (size_t at = 0; at < notice.size();) {  // a line each
        const size_t end = std::min(notice.find('\n', at), notice.size());
        std::fprintf(stderr, "tessera serve: %s\n", notice.substr(at, end - at).c_str());
        at = end + 1;
    }
    const int port = service.bind();
    const bool ipv6 = o.host.find(':') != std::string::npos;
    std::fprintf(stderr,
                 "tessera serve: listening on http://%s%s%s:%d/ (%d slot%s of %lld tokens, queue %d, on %s; Ctrl-C stops)\n",
                 ipv6 ? "[" : "", o.host.c_str(), ipv6 ? "]" : "", port, o.parallel, o.parallel > 1 ? "s" : "",
                 static_cast<long long>(service.engine().n_ctx()), o.queue, service.engine().runs_on().c_str());
    bool listened = true;
    std::thread http([&] {
        listened = service.run();
        if (!listened) ::kill(::getpid(), SIGTERM);  // wakes the sigwait below
    });
    int received = 0;
    ::sigwait(&signals, &received);
    std::fprintf(stderr, "tessera serve: %s, stopping\n", received == SIGINT ? "interrupted" : "terminated");
    service.stop();
    http.join();
    if (!listened) throw Error("the server stopped listening on " + o.host + ":" + std::to_string(port));
}

}  // namespace

void add_serve_command(CLI::App& app) {
    auto o = std::make_shared<ServeOptions>();
    auto* cmd = app.add_subcommand("serve", "OpenAI-compatible HTTP server with a chat page (docs/server.md)");
    add_model_options(*cmd, o->in);
    cmd->add_option("--host", o->host, "Address to listen on (loopback by default; 0.0.0.0: every interface)")
        ->capture_default_str();
    cmd->add_option("--port", o->port, "TCP port (0: a free one, printed)")
        ->check(CLI::Range(0, 65535))
        ->capture_default_str();
    cmd->add_option("--parallel,-P", o->parallel, "Requests generated at once (slots: the sequences of one batched KV cache)")
        ->check(CLI::Range(1, 256))
        ->capture_default_str();
    cmd->add_option("--queue", o->queue, "Requests that may wait for a slot; beyond, 503")
        ->check(CLI::Range(0, 4096))
        ->capture_default_str();
    cmd->add_flag("--no-warmup", o->no_warmup,
                  "Skip the warm-up passes before listening (a GPU then builds its pipelines during the first request)");
    cmd->add_option("--api-key", o->api_key, "Require 'Authorization: Bearer KEY' on /v1/ requests");
    cmd->add_option("--alias", o->alias, "Model name /v1/models lists and requests use (default: the file's name)");
    cmd->add_option("--chat-template", o->chat_template,
                    "Template family: zephyr, llama2, llama3, chatml, qwen3, gemma, phi3, plain (default: the model's)");
    cmd->callback([o] { serve(*o); });
}

}  // namespace tessera::cli
