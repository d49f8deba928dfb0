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

inarow::expected<void, std::string> ClusterPresence::start() {
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
  // Gone at once for the other nodes, not after the TTL.
  if (auto gone = directory_.deregister(node_id_); !gone) {
    spdlog::warn("cluster: could not deregister node {}: {}", node_id_, gone.error());
  }
}

bool ClusterPresence::beat() {
  auto renewed = directory_.heartbeat(node_id_, ttl_);
  if (renewed && !*renewed) {
    // Our entry lapsed (Redis lost it, or we were silent past the TTL).
    spdlog::warn("cluster: node {} had lapsed; registering again", node_id_);
    auto again = directory_.register_node(node_id_, address_, ttl_);
    if (!again) return false;
  }
  if (!renewed) return false;
  if (auto nodes = directory_.nodes(); nodes) {
    metrics_.cluster_nodes.store(static_cast<std::int64_t>(nodes->size()));
    return true;
  }
  return false;
}

void ClusterPresence::run() {
  const auto period = std::max(Millis{1}, ttl_ / 3);
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
    lock.unlock();
    const bool ok = beat();
    const bool was_ok = metrics_.redis_ready.exchange(ok);
    if (was_ok && !ok) spdlog::error("cluster: Redis does not answer; not ready");
    if (!was_ok && ok) spdlog::info("cluster: Redis answers again; ready");
    lock.lock();
  }
}

std::string default_node_id(std::uint16_t port) {
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) host[0] = '\0';
  return fmt::format("{}:{}:{}", host[0] ? host.data() : "node", port, ::getpid());
}

}  // namespace inarow::server
