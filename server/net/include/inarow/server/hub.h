// The hub: identities, the lobby and matchmaker, and the registry of match
// actors. Sessions (net.cpp) hand it parsed client messages; it answers
// through the Peer interface, so it knows nothing about sockets.
//
// Threading: the hub's state lives on its own strand; each match is an actor
// on its own strand (hub.cpp); bots search on a separate worker pool and post
// their moves back to their match's strand. Every public function here may be
// called from any thread.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inarow/server/config.h"
#include "inarow/server/metrics.h"
#include "inarow/server/protocol_error.h"
#include "inarow/server/store.h"
#include "inarow/server/store_writer.h"
#include "inarow/v1/inarow.pb.h"

namespace boost::asio {
class io_context;
class thread_pool;
}  // namespace boost::asio

namespace inarow::server {

// One server message, encoded at most once per form (protobuf binary, JSON
// text) and shared by every receiver. A match event arrives already encoded
// (the bytes its log row keeps): its binary frame is those bytes behind the
// ServerMessage field header, and it is decoded only if a text client asks.
class Outgoing {
 public:
  explicit Outgoing(inarow::v1::ServerMessage message) : message_(std::move(message)) {}
  // ServerMessage{event}, from the event's protobuf encoding.
  static std::shared_ptr<const Outgoing> event(std::string_view encoded_event);

  // The frame in the given form; it lives as long as this Outgoing.
  const std::string& payload(bool text) const;

 private:
  struct Encoded {};  // a key: only event() builds from bytes

 public:
  Outgoing(Encoded, std::string binary) : binary_(std::move(binary)), encoded_(true) {}

 private:
  inarow::v1::ServerMessage message_;  // empty when built from bytes
  mutable std::once_flag binary_once_, text_once_;
  mutable std::string binary_, text_;
  bool encoded_ = false;  // binary_ was given, not encoded from message_
};

std::shared_ptr<const Outgoing> make_outgoing(inarow::v1::ServerMessage message);
// An Error answer, counted in the metrics.
std::shared_ptr<const Outgoing> make_error(Metrics& metrics, std::uint64_t request_id,
                                           const Failure& failure,
                                           const std::string& match_id = {});

enum class CloseKind { going_away, policy_violation };

// A client connection as the hub sees it.
class Peer {
 public:
  virtual ~Peer() = default;
  // Queue a message; safe from any thread, never blocks.
  virtual void deliver(std::shared_ptr<const Outgoing> message) = 0;
  // Queue several, in order, in one go (a move's events and its ack).
  virtual void deliver_all(std::vector<std::shared_ptr<const Outgoing>> messages) {
    for (auto& m : messages)
      deliver(std::move(m));
  }
  // Send what is queued, then close with the given WebSocket close code.
  virtual void close(CloseKind kind) = 0;
};

class Hub {
 public:
  // Bots search on `bot_pool`, which must outlive every match.
  Hub(boost::asio::io_context& ioc, boost::asio::thread_pool& bot_pool, const ServerConfig& config,
      Store& store, StoreWriter& writer, Metrics& metrics);
  ~Hub();
  Hub(const Hub&) = delete;
  Hub& operator=(const Hub&) = delete;

  // Load players and unfinished matches from the store (before serving).
  void restore();
  void receive(std::shared_ptr<Peer> peer, inarow::v1::ClientMessage message);
  void disconnected(const std::shared_ptr<Peer>& peer);
  // Say goodbye to every peer, stop bots and timers.
  void shutdown();
  // GET /matches/<id>: the game record as JSON, from the store.
  std::optional<std::string> match_record_json(const std::string& id);

  struct Impl;  // defined in hub.cpp

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace inarow::server
