// A client connection without a socket: it keeps every message the server
// delivers, decoded, for tests of the router and the match actor.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
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
  // How many messages came so far: a mark to look for an answer after.
  std::size_t count() const {
    std::lock_guard lock(mutex_);
    return received_.size();
  }
  std::vector<v1::MatchEvent> events() const {
    std::lock_guard lock(mutex_);
    std::vector<v1::MatchEvent> out;
    for (const auto& m : received_)
      if (m.has_event()) out.push_back(m.event());
    return out;
  }
  // The last event that came, if any among the messages from the `from`th
  // on (no copy of the others).
  std::optional<v1::MatchEvent> last_event(std::size_t from = 0) const {
    std::lock_guard lock(mutex_);
    for (auto i = received_.size(); i > from; --i)
      if (received_[i - 1].has_event()) return received_[i - 1].event();
    return std::nullopt;
  }
  // The answer to a request (anything carrying its id but an event), if it
  // came; only messages from the `from`th on are looked at.
  std::optional<v1::ServerMessage> answer(std::uint64_t request_id, std::size_t from = 0) const {
    std::lock_guard lock(mutex_);
    for (auto i = from; i < received_.size(); ++i)
      if (received_[i].request_id() == request_id && !received_[i].has_event()) return received_[i];
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
