#include "cluster_presence.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <array>

namespace inarow::server {

ClusterPresence::ClusterPresence(std::unique_ptr<Redis> redis, std::string node_id,
                                 std::string address, Millis ttl, Metrics& metrics)
    : redis_(std::move(redis)),
      directory_(*redis_),
      node_id_(std::move(node_id)),
      address_(std::move(address)),
      ttl_(ttl),
      metrics_(metrics) {
  redis_->on_latency([&m = metrics_](double seconds, bool ok) {
    m.redis_command.observe(seconds);
    if (!ok) m.redis_failures.fetch_add(1, std::memory_order_relaxed);
  });
}

ClusterPresence::~ClusterPresence() {
  stop();
}

inarow::expected<void, std::string> ClusterPresence::start(Everyone everyone) {
  everyone_ = std::move(everyone);
  if (auto registered = directory_.register_node(node_id_, address_, ttl_); !registered) {
    return inarow::unexpected("cannot register node " + node_id_ + ": " + registered.error());
  }
  if (auto nodes = directory_.nodes(); nodes) {
    metrics_.cluster_nodes.store(static_cast<std::int64_t>(nodes->size()));
  }
  thread_ = std::thread([this] { run(); });
  return {};
}

void ClusterPresence::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  // The people told here (those who left meanwhile too: the jobs that
  // would have cleared them are dropped) are nowhere now, unless another
  // node has them since.
  if (!located_.empty()) {
    std::vector<std::string> players(located_.begin(), located_.end());
    if (auto cleared = directory_.clear_locations(players, node_id_); !cleared) {
      spdlog::warn("cluster: could not clear the locations of node {}: {}", node_id_,
                   cleared.error());
    }
    located_.clear();
  }
  // Gone at once for the other nodes, not after the TTL.
  if (auto gone = directory_.deregister(node_id_); !gone) {
    spdlog::warn("cluster: could not deregister node {}: {}", node_id_, gone.error());
  }
}

void ClusterPresence::enqueue(std::function<void(Directory&)> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    jobs_.push_back(std::move(job));
  }
  wake_.notify_all();
}

void ClusterPresence::every(Millis period, std::function<void(Directory&)> task) {
  periodic_.push_back(Periodic{period, std::move(task), SteadyClock::time_point{}});
}

void ClusterPresence::located(const std::string& player_id, bool online) {
  enqueue([player_id, online, this](Directory& d) {
    std::string error;
    if (online) {
      located_.insert(player_id);
      if (auto set = d.set_location(player_id, node_id_, kLocationTtl); !set) error = set.error();
    } else if (auto cleared = d.clear_location(player_id, node_id_); !cleared) {
      error = cleared.error();
    } else {
      located_.erase(player_id);
    }
    if (!error.empty()) spdlog::debug("cluster: location of {} not told: {}", player_id, error);
  });
}

void ClusterPresence::located(std::vector<std::string> players) {
  enqueue([players = std::move(players), this](Directory& d) {
    located_.insert(players.begin(), players.end());
    // If Redis is gone, the heartbeat finds it so and tells them all again.
    if (auto done = d.set_locations(players, node_id_, kLocationTtl); !done)
      spdlog::debug("cluster: {} locations not told: {}", players.size(), done.error());
  });
}

void ClusterPresence::tell_locations_again() {
  if (everyone_)
    everyone_([this](std::vector<std::string> players) { located(std::move(players)); });
}

bool ClusterPresence::beat() {
  auto renewed = directory_.heartbeat(node_id_, ttl_);
  if (renewed && !*renewed) {
    // Our entry lapsed (Redis lost it, or we were silent past the TTL), and
    // with it, likely, our people's locations.
    spdlog::warn("cluster: node {} had lapsed; registering again", node_id_);
    metrics_.node_lapses.fetch_add(1, std::memory_order_relaxed);
    auto again = directory_.register_node(node_id_, address_, ttl_);
    if (!again) return false;
    tell_locations_again();
  }
  if (!renewed) return false;
  if (*renewed) metrics_.heartbeats.fetch_add(1, std::memory_order_relaxed);
  if (auto nodes = directory_.nodes(); nodes) {
    metrics_.cluster_nodes.store(static_cast<std::int64_t>(nodes->size()));
    return true;
  }
  return false;
}

void ClusterPresence::run() {
  const auto period = std::max(Millis{1}, ttl_ / 3);
  auto next_beat = SteadyClock::now() + period;
  auto next_retell = SteadyClock::now() + kLocationTtl / 3;
  for (Periodic& p : periodic_)
    p.next = SteadyClock::now() + p.period;
  // The heartbeat has a deadline and the other work has not: the entry
  // lapses ttl after the last renewal reached Redis. So it goes first
  // whenever it is due, and again between any two jobs or tasks, and a
  // renewal that succeeded schedules the next from when it was sent, not
  // from when the work around it ended. A failed one waits a period from
  // its end, so a Redis that is gone is asked once a period, not in a loop.
  const auto beat_if_due = [&] {
    const auto started = SteadyClock::now();
    if (started < next_beat) return;
    const bool ok = beat();
    const bool was_ok = metrics_.redis_ready.exchange(ok);
    if (was_ok && !ok) spdlog::error("cluster: Redis does not answer; not ready");
    if (!was_ok && ok) {
      spdlog::info("cluster: Redis answers again; ready");
      tell_locations_again();  // what was told meanwhile was lost
    }
    next_beat = (ok ? started : SteadyClock::now()) + period;
  };
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    auto wake_at = next_beat;
    for (const Periodic& p : periodic_)
      wake_at = std::min(wake_at, p.next);
    wake_.wait_until(lock, wake_at, [this] { return stopping_ || !jobs_.empty(); });
    if (stopping_) break;
    lock.unlock();
    beat_if_due();
    // Then the jobs, in the order they came, and the tasks that are due.
    lock.lock();
    while (!jobs_.empty()) {
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job(directory_);
      beat_if_due();
      lock.lock();
    }
    lock.unlock();
    for (Periodic& p : periodic_) {
      if (SteadyClock::now() < p.next) continue;
      p.task(directory_);
      p.next = SteadyClock::now() + p.period;
      beat_if_due();
    }
    if (SteadyClock::now() >= next_retell) {
      tell_locations_again();
      next_retell = SteadyClock::now() + kLocationTtl / 3;
    }
    lock.lock();
  }
}

std::string default_node_id(std::uint16_t port) {
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) host[0] = '\0';
  return fmt::format("{}:{}:{}", host[0] ? host.data() : "node", port, ::getpid());
}

}  // namespace inarow::server
