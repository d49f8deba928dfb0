// A client connection without a socket: it keeps every message the server
// delivers, decoded, for tests of the router and the match actor.
#pragma once

#include <gtest/gtest.h>

#include <mutex>
#include <optional>
#include <vector>

#include "inarow/server/connection.h"
#include "inarow/v1/inarow.pb.h"

namespace inarow::testing {

class FakeConnection : public server::Connection {
 public:
  void deliver(server::OutgoingPtr message) override {
    v1::ServerMessage m;
    ASSERT_TRUE(m.ParseFromString(message->payload(false)));
    std::lock_guard lock(mutex_);
    received_.push_back(std::move(m));
  }
  void close(server::CloseKind kind) override {
    std::lock_guard lock(mutex_);
    closed_ = kind;
  }

  std::vector<v1::ServerMessage> received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }
  std::vector<v1::MatchEvent> events() const {
    std::vector<v1::MatchEvent> out;
    for (const auto& m : received())
      if (m.has_event()) out.push_back(m.event());
    return out;
  }
  // The answer to a request (anything carrying its id but an event), if it came.
  std::optional<v1::ServerMessage> answer(std::uint64_t request_id) const {
    for (const auto& m : received())
      if (m.request_id() == request_id && !m.has_event()) return m;
    return std::nullopt;
  }
  std::optional<server::CloseKind> closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<v1::ServerMessage> received_;
  std::optional<server::CloseKind> closed_;
};

}  // namespace inarow::testing
