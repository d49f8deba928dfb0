// StoreWriter: group commit on one thread (see store_writer.h).
#include "inarow/server/store_writer.h"

namespace inarow::server {

StoreWriter::StoreWriter(Store& store, Observer observer)
    : store_(store), observer_(std::move(observer)), thread_([this] { run(); }) {}

void StoreWriter::heartbeat(std::chrono::milliseconds every) {
  {
    std::lock_guard lock(mutex_);
    heartbeat_ = every;
  }
  wake_.notify_one();
}

StoreWriter::~StoreWriter() {
  stop();
}

void StoreWriter::submit(std::vector<StoreOp> ops, Done done) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(Job{std::move(ops), std::move(done)});
  }
  wake_.notify_one();
}

void StoreWriter::flush() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void StoreWriter::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void StoreWriter::run() {
  // Both reused: their capacity follows the largest batch.
  std::vector<StoreOp> ops;
  std::vector<Job> batch;
  using Clock = std::chrono::steady_clock;
  Clock::time_point last_beat{};  // long ago: the first commit beats
  auto beat_due = [&] { return heartbeat_.count() > 0 && Clock::now() - last_beat >= heartbeat_; };
  std::unique_lock lock(mutex_);
  for (;;) {
    auto ready = [&] { return stopping_ || !queue_.empty() || beat_due(); };
    if (heartbeat_.count() > 0) {
      wake_.wait_until(lock, last_beat + heartbeat_, ready);
    } else {
      wake_.wait(lock, ready);
    }
    const bool beat = beat_due() && !stopping_;
    if (queue_.empty() && !beat) {
      if (stopping_) return;
      continue;
    }
    // Everything that queued up while the last commit ran goes in one transaction.
    batch.swap(queue_);
    busy_ = true;
    lock.unlock();

    ops.clear();
    for (Job& job : batch) {
      for (StoreOp& op : job.ops)
        ops.push_back(std::move(op));
    }
    if (beat) {
      ops.push_back(store_op::Alive{unix_ms()});
      last_beat = Clock::now();
    }
    const auto started = std::chrono::steady_clock::now();
    const bool ok = store_.write(ops).has_value();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (observer_) observer_(seconds, ops.size(), ok);
    for (Job& job : batch) {
      if (job.done) job.done(ok);
    }
    batch.clear();

    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_.notify_all();
  }
}

}  // namespace inarow::server
