#include "tools/serve/stream_channel.hpp"

namespace tessera::serve {

void StreamChannel::push_text(std::string_view text) {
    {
        std::lock_guard lock(mutex_);
        text_ += text;
    }
    changed_.notify_all();
}

void StreamChannel::finish(const JobResult& result) {
    {
        std::lock_guard lock(mutex_);
        done_ = result;
    }
    changed_.notify_all();
}

StreamChannel::Taken StreamChannel::take(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, timeout, [this] { return !text_.empty() || done_; });
    Taken taken{std::move(text_), done_};
    text_.clear();
    return taken;
}

}  // namespace tessera::serve
