#include "session_context.h"

namespace inarow::server {

bool SessionContext::admit(const std::string& address) {
  std::lock_guard lock(mutex_);
  int& n = per_address_[address];
  if (n >= config.max_connections_per_ip) return false;
  ++n;
  return true;
}

void SessionContext::release(const std::string& address) {
  std::lock_guard lock(mutex_);
  if (--per_address_[address] <= 0) per_address_.erase(address);
}

bool SessionContext::admit_http(const std::string& address) {
  std::lock_guard lock(mutex_);
  int& n = http_per_address_[address];
  if (n >= config.max_http_connections_per_ip) {
    if (n == 0) http_per_address_.erase(address);
    return false;
  }
  ++n;
  return true;
}

void SessionContext::release_http(const std::string& address) {
  std::lock_guard lock(mutex_);
  if (--http_per_address_[address] <= 0) http_per_address_.erase(address);
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
