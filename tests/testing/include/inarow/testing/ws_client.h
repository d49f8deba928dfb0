// A WebSocket client for tests that speaks the protocol synchronously (each
// read has a timeout, so a test that waits for something that never comes
// fails instead of hanging), and a plain HTTP GET.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "inarow/testing/messages.h"
#include "inarow/v1/inarow.pb.h"

namespace inarow::testing {

namespace v1 = ::inarow::v1;
using namespace std::chrono_literals;

struct HttpReply {
  int status = 0;
  std::string content_type;
  std::string body;
};
HttpReply http_get(std::uint16_t port, const std::string& target);

class WsClient {
 public:
  // Connects to ws://127.0.0.1:port/ws; `text` picks JSON text frames over binary.
  explicit WsClient(std::uint16_t port, bool text = false);
  ~WsClient();
  WsClient(const WsClient&) = delete;
  WsClient& operator=(const WsClient&) = delete;

  // Send with the next request id (returned) unless the message has one.
  std::uint64_t send(v1::ClientMessage message);
  void send_raw(const std::string& bytes, bool text);

  // The next server message, or nullopt when none comes in time or the
  // connection closed (see closed()).
  std::optional<v1::ServerMessage> next(std::chrono::milliseconds timeout = 5s);
  // Skip messages until one matches; nullopt on timeout.
  std::optional<v1::ServerMessage> next_until(
      const std::function<bool(const v1::ServerMessage&)>& match,
      std::chrono::milliseconds timeout = 5s);
  // Send and wait for the answer naming this request; other messages that
  // come first stay queued for next().
  v1::ServerMessage request(v1::ClientMessage message, std::chrono::milliseconds timeout = 5s);
  // The next match event (other messages are skipped, and so is the
  // unnumbered count of watchers: wait for that with next_until), checked
  // to exist.
  v1::MatchEvent next_event(std::chrono::milliseconds timeout = 5s);

  // hello with a name (or token); keeps the id and token.
  v1::Welcome hello(const std::string& name);
  v1::Welcome resume(const std::string& token,
                     const std::vector<std::pair<std::string, std::uint64_t>>& cursors = {});
  const std::string& token() const { return token_; }
  const std::string& player_id() const { return player_id_; }

  // Convenience requests.
  v1::ServerMessage play_bot(const std::string& variant, const std::string& level,
                             v1::Side side = v1::SIDE_FIRST, std::int64_t initial_ms = 0,
                             std::int64_t increment_ms = 0);
  v1::ServerMessage seek(const std::string& variant, std::int64_t initial_ms = 0,
                         std::int64_t increment_ms = 0);
  v1::ServerMessage move(const std::string& match_id, const std::string& move);

  bool closed() const { return closed_; }
  // The close code the server sent, 0 if none yet.
  int close_code() const { return close_code_; }
  void close();
  // Drop the TCP connection without a close handshake.
  void drop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::deque<v1::ServerMessage> backlog_;
  std::uint64_t next_request_id_ = 1;
  std::string token_;
  std::string player_id_;
  bool closed_ = false;
  int close_code_ = 0;
};

// The next event of `kind` for `match_id`, skipping everything before it; a
// test failure (and an empty event) when none comes in time.
v1::MatchEvent wait_event(WsClient& c, const std::string& match_id, v1::MatchEvent::KindCase kind,
                          std::chrono::milliseconds timeout = 10s);

}  // namespace inarow::testing
