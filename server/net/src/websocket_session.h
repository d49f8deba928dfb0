// A WebSocket connection at /ws: reads frames (size and rate limits), parses
// them as ClientMessages (binary protobuf or its JSON mapping, answered in
// the same form) for the router, and writes what the server delivers, one
// write in flight, on the connection's strand.
#pragma once

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <deque>
#include <memory>
#include <string>
#include <utility>

#include "inarow/server/connection.h"
#include "rate_limiter.h"
#include "session_context.h"
#include "socket.h"

namespace inarow::server {

class WebSocketSession : public Connection, public std::enable_shared_from_this<WebSocketSession> {
 public:
  // `admitted`: false when its address has too many connections; it is then
  // told so and closed.
  WebSocketSession(Socket&& socket, SessionContext& shared, std::string address, bool admitted);
  ~WebSocketSession() override;

  // Accept the upgrade request and start reading.
  void run(boost::beast::http::request<boost::beast::http::string_body> request);

  void deliver(OutgoingPtr message) override;
  void deliver_all(std::vector<OutgoingPtr> messages) override;
  void close(CloseKind kind) override;
  std::string address() const override { return address_; }

 private:
  void on_accept(boost::beast::error_code ec);
  void do_read();
  void on_read(boost::beast::error_code ec, std::size_t);
  void handle_frame(std::string_view data);
  void send_error(std::uint64_t request_id, const Failure& f);
  void enqueue(const OutgoingPtr& message);
  void do_write();
  void on_write(boost::beast::error_code ec, std::size_t);
  void close_when_sent(boost::beast::websocket::close_code code);
  void do_close();
  void gone();

  // On the bare socket: the websocket keeps its own timers (handshake, idle
  // pings), so tcp_stream's per-operation timeout machinery would only cost;
  // no permessage-deflate (frames are a few dozen bytes).
  boost::beast::websocket::stream<Socket, false> ws_;
  boost::beast::flat_buffer buffer_;
  SessionContext& shared_;
  std::string address_;
  bool admitted_;
  RateLimiter limiter_;
  int strikes_ = 0;
  bool text_ = false;  // the form of the last frame received; answers follow it
  std::deque<std::pair<OutgoingPtr, bool>> queue_;  // and in which form
  bool writing_ = false;
  bool close_requested_ = false;
  bool close_started_ = false;
  bool gone_ = false;
  boost::beast::websocket::close_code close_code_ = boost::beast::websocket::close_code::normal;
};

}  // namespace inarow::server
