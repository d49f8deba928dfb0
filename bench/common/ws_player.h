// The WebSocket side both load drivers share: connect (optionally from a
// chosen loopback source address, so ten thousand connections do not run out
// of ephemeral ports), handshake at /ws, a read loop, an ordered write queue,
// request ids, the think pause and a random legal move.
//
// A driver's player derives from WsPlayer<Itself> and provides
//   void on_open();                          // handshake done
//   void on_frame(std::string_view frame);   // one whole message
//   void on_failure(const char* what, boost::beast::error_code ec);
#pragma once

#include <google/protobuf/util/json_util.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "inarow/engine/game.h"
#include "inarow/engine/notation.h"
#include "inarow/v1/inarow.pb.h"

namespace inarow::bench {

template <class Derived>
class WsPlayer : public std::enable_shared_from_this<Derived> {
 public:
  using tcp = boost::asio::ip::tcp;
  using error_code = boost::beast::error_code;

  // `source`: bind to 127.0.0.<2 + source> first (nullopt: the kernel picks).
  void connect(const tcp::endpoint& endpoint, std::string host, std::optional<int> source) {
    host_ = std::move(host);
    auto& socket = boost::beast::get_lowest_layer(ws_).socket();
    if (source) {
      error_code ec;
      socket.open(tcp::v4(), ec);
      socket.bind(
          tcp::endpoint(
              boost::asio::ip::address_v4((127u << 24) + 2u + static_cast<unsigned>(*source)), 0),
          ec);
      if (ec) return derived().on_failure("bind", ec);
    }
    boost::beast::get_lowest_layer(ws_).async_connect(
        endpoint, boost::beast::bind_front_handler(&WsPlayer::on_connect, self()));
  }

  // From any thread: close the socket (the run is over).
  void close() {
    boost::asio::post(ws_.get_executor(), [me = self()] {
      error_code ec;
      boost::beast::get_lowest_layer(me->ws_).socket().close(ec);
    });
  }

 protected:
  WsPlayer(boost::asio::io_context& ioc, std::uint64_t seed, bool json)
      : ws_(boost::asio::make_strand(ioc)), rng_(seed), think_(ws_.get_executor()), json_(json) {}

  std::shared_ptr<Derived> self() { return this->shared_from_this(); }
  Derived& derived() { return static_cast<Derived&>(*this); }

  // Numbered, encoded as the connection speaks (protobuf or its JSON), queued.
  std::uint64_t send(v1::ClientMessage& m) {
    m.set_request_id(++request_id_);
    std::string frame;
    if (json_) {
      (void)google::protobuf::util::MessageToJsonString(m, &frame);
    } else {
      frame = m.SerializeAsString();
    }
    send_frame(std::move(frame));
    return m.request_id();
  }

  void send_frame(std::string frame) {
    queue_.push_back(std::move(frame));
    if (queue_.size() == 1) do_write();
  }

  // A frame in the connection's encoding (a ServerMessage, or for the echo
  // limit the ClientMessage it relays).
  template <class Message>
  bool parse(std::string_view frame, Message& m) const {
    if (json_) {
      return google::protobuf::util::JsonStringToMessage(
                 google::protobuf::StringPiece(frame.data(), frame.size()), &m)
          .ok();
    }
    return m.ParseFromArray(frame.data(), static_cast<int>(frame.size()));
  }

  // Run `then` after a pause uniform in [think/2, 3*think/2), at once for 0:
  // players that started together drift apart.
  template <class F>
  void after_think(int think_ms, F then) {
    if (think_ms <= 0) return then();
    const auto ms = think_ms / 2 + static_cast<int>(rng_() % static_cast<unsigned>(think_ms));
    think_.expires_after(std::chrono::milliseconds(ms));
    think_.async_wait([me = self(), then = std::move(then)](error_code ec) mutable {
      if (!ec) then();
    });
  }

  // A uniformly random legal move in `match_id`, or nothing when none is left.
  std::optional<v1::ClientMessage> random_move(const Game& game, const std::string& match_id) {
    const auto legal = game.legal_moves();
    if (legal.empty()) return std::nullopt;
    v1::ClientMessage m;
    m.mutable_move()->set_match_id(match_id);
    m.mutable_move()->set_move(format_move(game.variant(), legal[rng_() % legal.size()]));
    return m;
  }

  boost::beast::websocket::stream<boost::beast::tcp_stream> ws_;
  std::mt19937_64 rng_;

 private:
  void on_connect(error_code ec) {
    // A connection closed while its connect completed has no socket left to set.
    if (!ec) boost::beast::get_lowest_layer(ws_).socket().set_option(tcp::no_delay(true), ec);
    if (ec) return derived().on_failure("connect", ec);
    ws_.text(json_);
    ws_.async_handshake(host_, "/ws",
                        boost::beast::bind_front_handler(&WsPlayer::on_handshake, self()));
  }

  void on_handshake(error_code ec) {
    if (ec) return derived().on_failure("handshake", ec);
    derived().on_open();
    do_read();
  }

  void do_read() {
    ws_.async_read(buffer_, boost::beast::bind_front_handler(&WsPlayer::on_read, self()));
  }

  void on_read(error_code ec, std::size_t) {
    if (ec) return derived().on_failure("read", ec);
    derived().on_frame(
        std::string_view(static_cast<const char*>(buffer_.cdata().data()), buffer_.size()));
    buffer_.consume(buffer_.size());
    do_read();
  }

  void do_write() {
    ws_.async_write(boost::asio::buffer(queue_.front()),
                    boost::beast::bind_front_handler(&WsPlayer::on_write, self()));
  }

  void on_write(error_code ec, std::size_t) {
    if (ec) return derived().on_failure("write", ec);
    queue_.pop_front();
    if (!queue_.empty()) do_write();
  }

  boost::beast::flat_buffer buffer_;
  boost::asio::steady_timer think_;
  std::deque<std::string> queue_;
  std::string host_;
  std::uint64_t request_id_ = 0;
  bool json_;
};

}  // namespace inarow::bench
