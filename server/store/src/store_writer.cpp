// StoreWriter: group commit on one thread (see store_writer.h).
#include "inarow/server/store_writer.h"

#include <algorithm>
#include <type_traits>

namespace inarow::server {
namespace {

// The match an op writes, if it writes one.
const std::string* match_of(const StoreOp& op) {
  return std::visit(
      [](const auto& o) -> const std::string* {
        if constexpr (std::is_same_v<std::decay_t<decltype(o)>, store_op::CreateMatch>) {
          return &o.match.id;
        } else if constexpr (requires { o.match_id; }) {
          return &o.match_id;
        } else {
          return nullptr;
        }
      },
      op);
}

}  // namespace

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
  // All reused: their capacity follows the largest batch.
  std::vector<StoreOp> ops;
  std::vector<std::size_t> ends;
  std::vector<Outcome> outcomes;
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
    ends.clear();
    for (Job& job : batch) {
      for (StoreOp& op : job.ops)
        ops.push_back(std::move(op));
      ends.push_back(ops.size());
    }
    if (beat) {
      ops.push_back(store_op::Alive{unix_ms()});
      last_beat = Clock::now();
    }
    outcomes.assign(batch.size(), Outcome::ok);
    commit(ops, ends, outcomes);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (batch[i].done) batch[i].done(outcomes[i]);
    }
    batch.clear();

    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_.notify_all();
  }
}

void StoreWriter::commit(std::vector<StoreOp>& ops, std::vector<std::size_t>& ends,
                         std::vector<Outcome>& outcomes) {
  for (;;) {
    const auto started = std::chrono::steady_clock::now();
    const auto written = store_.write(ops);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const bool fenced = !written && !written.error().fenced.empty();
    if (observer_) observer_(seconds, ops.size(), written || fenced);
    if (written) return;
    bool dropped = false;
    if (fenced) {
      // The jobs that touch a fenced match leave the batch (fenced); the
      // others' ops close up, each job's end moving with them.
      const std::vector<std::string>& ids = written.error().fenced;
      std::size_t from = 0;
      std::size_t to = 0;
      auto keep = [&](std::size_t end) {
        for (; from < end; ++from, ++to) {
          if (to != from) ops[to] = std::move(ops[from]);
        }
      };
      for (std::size_t i = 0; i < ends.size(); ++i) {
        const bool touches =
            std::any_of(ops.begin() + static_cast<std::ptrdiff_t>(from),
                        ops.begin() + static_cast<std::ptrdiff_t>(ends[i]), [&](const StoreOp& op) {
                          const std::string* id = match_of(op);
                          return id && std::ranges::find(ids, *id) != ids.end();
                        });
        if (touches) {
          outcomes[i] = Outcome::fenced;
          from = ends[i];
          dropped = true;
        } else {
          keep(ends[i]);
        }
        ends[i] = to;
      }
      keep(ops.size());  // the heartbeat's
      ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(to), ops.end());
    }
    if (!dropped) {
      // Failed (or fenced matches none of the batch's jobs names): every
      // job still in the batch fails with it.
      for (Outcome& o : outcomes) {
        if (o == Outcome::ok) o = Outcome::failed;
      }
      return;
    }
    if (ops.empty()) return;  // every job was fenced, and no heartbeat is due
  }
}

}  // namespace inarow::server
