#include "tools/serve/job_queue.hpp"

#include <algorithm>

namespace tessera::serve {

JobQueue::Push JobQueue::push(std::shared_ptr<Job> job) {
    {
        std::lock_guard lock(mutex_);
        if (closed_) return Push::Closed;
        if (jobs_.size() >= limit_) return Push::Full;
        jobs_.push_back(std::move(job));
    }
    ready_.notify_all();
    return Push::Ok;
}

std::shared_ptr<Job> JobQueue::pop() {
    std::lock_guard lock(mutex_);
    if (jobs_.empty()) return nullptr;
    std::shared_ptr<Job> job = std::move(jobs_.front());
    jobs_.pop_front();
    return job;
}

std::vector<std::shared_ptr<Job>> JobQueue::take_cancelled() {
    std::lock_guard lock(mutex_);
    std::vector<std::shared_ptr<Job>> gone;
    const auto keep = std::stable_partition(jobs_.begin(), jobs_.end(), [](const auto& j) { return !j->cancelled; });
    gone.assign(keep, jobs_.end());
    jobs_.erase(keep, jobs_.end());
    return gone;
}

std::vector<std::shared_ptr<Job>> JobQueue::close() {
    std::vector<std::shared_ptr<Job>> waiting;
    {
        std::lock_guard lock(mutex_);
        closed_ = true;
        waiting.assign(jobs_.begin(), jobs_.end());
        jobs_.clear();
    }
    ready_.notify_all();
    return waiting;
}

void JobQueue::wait() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return !jobs_.empty() || closed_ || woken_; });
    woken_ = false;
}

void JobQueue::wake() {
    {
        std::lock_guard lock(mutex_);
        woken_ = true;
    }
    ready_.notify_all();
}

size_t JobQueue::size() const {
    std::lock_guard lock(mutex_);
    return jobs_.size();
}

bool JobQueue::closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
}

}  // namespace tessera::serve
