#include "session_context.h"

namespace inarow::server {

namespace {

// One more connection from `address`, unless it has `limit` already.
bool admit_to(std::map<std::string, int>& counts, const std::string& address, int limit) {
  auto it = counts.try_emplace(address, 0).first;
  if (it->second >= limit) {
    if (it->second == 0) counts.erase(it);
    return false;
  }
  ++it->second;
  return true;
}

void release_from(std::map<std::string, int>& counts, const std::string& address) {
  if (--counts[address] <= 0) counts.erase(address);
}

}  // namespace

bool SessionContext::admit(const std::string& address) {
  std::lock_guard lock(mutex_);
  return admit_to(per_address_, address, config.max_connections_per_ip);
}

void SessionContext::release(const std::string& address) {
  std::lock_guard lock(mutex_);
  release_from(per_address_, address);
}

bool SessionContext::admit_http(const std::string& address) {
  std::lock_guard lock(mutex_);
  return admit_to(http_per_address_, address, config.max_http_connections_per_ip);
}

void SessionContext::release_http(const std::string& address) {
  std::lock_guard lock(mutex_);
  release_from(http_per_address_, address);
}

std::uint64_t SessionContext::enlist_http(std::weak_ptr<Evictable> session) {
  std::lock_guard lock(mutex_);
  const auto key = ++next_http_key_;
  http_sessions_.emplace(key, std::move(session));
  return key;
}

void SessionContext::discharge_http(std::uint64_t key) {
  std::lock_guard lock(mutex_);
  http_sessions_.erase(key);
}

std::size_t SessionContext::evict_waiting_http(std::size_t n) {
  std::vector<std::shared_ptr<Evictable>> asked;
  {
    std::lock_guard lock(mutex_);
    while (asked.size() < n && !http_sessions_.empty()) {
      auto oldest = http_sessions_.begin();
      if (auto s = oldest->second.lock()) asked.push_back(std::move(s));
      http_sessions_.erase(oldest);
    }
  }
  for (auto& s : asked)
    s->evict();
  return asked.size();
}

void SessionContext::enlist(const ConnectionPtr& connection) {
  std::lock_guard lock(mutex_);
  live_[connection.get()] = connection;
}

void SessionContext::discharge(Connection* connection) {
  std::lock_guard lock(mutex_);
  live_.erase(connection);
}

void SessionContext::close_all() {
  std::vector<ConnectionPtr> connections;
  {
    std::lock_guard lock(mutex_);
    for (auto& [key, weak] : live_) {
      if (auto c = weak.lock()) connections.push_back(std::move(c));
    }
  }
  for (auto& c : connections)
    c->close(CloseKind::going_away);
}

}  // namespace inarow::server
