// A client's connection as everything behind the sessions sees it: a place
// to deliver messages and something to close. The WebSocket session is the
// real kind (websocket_session.h); a client of another node of a cluster is
// the relayed kind (cluster_node.h); tests use fakes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "inarow/server/metrics.h"
#include "inarow/server/wire.h"

namespace inarow::server {

enum class CloseKind { going_away, policy_violation };

class Connection {
 public:
  virtual ~Connection() = default;
  // Queue a message; safe from any thread, never blocks.
  virtual void deliver(OutgoingPtr message) = 0;
  // Queue several, in order, in one go (a move's events and its ack).
  virtual void deliver_all(std::vector<OutgoingPtr> messages) {
    for (auto& m : messages)
      deliver(std::move(m));
  }
  // Send what is queued, then close with the given WebSocket close code.
  virtual void close(CloseKind kind) = 0;
  // The peer's address, for limits kept per address (empty when unknown).
  virtual std::string address() const { return {}; }
  // A client of another node of the cluster, relayed over a link: it is
  // online there, not here (not counted, no location set by this node).
  virtual bool relayed() const { return false; }
};

using ConnectionPtr = std::shared_ptr<Connection>;

// Deliver, counting what goes out.
inline void send(Metrics& metrics, const ConnectionPtr& to, OutgoingPtr message) {
  metrics.messages_out.fetch_add(1, std::memory_order_relaxed);
  to->deliver(std::move(message));
}
inline void send_all(Metrics& metrics, const ConnectionPtr& to, std::vector<OutgoingPtr> messages) {
  metrics.messages_out.fetch_add(messages.size(), std::memory_order_relaxed);
  if (messages.size() == 1) {
    to->deliver(std::move(messages.front()));
  } else {
    to->deliver_all(std::move(messages));
  }
}

}  // namespace inarow::server
