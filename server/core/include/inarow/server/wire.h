// The wire mapping: server messages as frames, encoded at most once per form
// and shared by every receiver, and the answers every part sends (ack,
// error, event).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "inarow/server/metrics.h"
#include "inarow/server/protocol_error.h"
#include "inarow/v1/inarow.pb.h"

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
  // A ServerMessage already encoded (by another node, which relays it).
  static std::shared_ptr<const Outgoing> encoded(std::string binary);

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

using OutgoingPtr = std::shared_ptr<const Outgoing>;

OutgoingPtr make_outgoing(inarow::v1::ServerMessage message);

// An error message as the wire carries it: unchanged when it is valid UTF-8
// of at most kMaxMessageBytes without a control or format character (what
// every message that shows client text through json::echo is); otherwise
// escaped and cut by json::echo, so that no frame carries a string protobuf
// or a browser would refuse, whatever part wrote the message.
inline constexpr std::size_t kMaxMessageBytes = 512;
std::string shown_message(const std::string& message);
// An Error answer, counted in the metrics.
OutgoingPtr make_error(Metrics& metrics, std::uint64_t request_id, const Failure& failure,
                       const std::string& match_id = {});
// An Ack; `code` is a private game's code.
OutgoingPtr make_ack(std::uint64_t request_id, const std::string& match_id,
                     const std::string& code = {});
OutgoingPtr make_event(const inarow::v1::MatchEvent& event);

// A frame as a WebSocket session receives it, into `out`: protobuf in a
// binary frame, its JSON mapping in a text frame (unknown fields ignored).
// What cannot be routed is the failure to answer: a frame that does not
// parse (answered with request id 0) or a message without a body (answered
// with its request id).
std::optional<Failure> parse_frame(std::string_view data, bool text,
                                   inarow::v1::ClientMessage& out);

}  // namespace inarow::server
