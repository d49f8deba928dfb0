// The listener: accepts TCP connections, each on a strand of its own, and
// hands them to an HTTP session.
//
// When the process runs out of descriptors (EMFILE, ENFILE) accept fails
// while the connection waits in the backlog, so the acceptor stays readable
// and a plain re-arm would spin, logging each failure. Instead it backs off
// (50 ms, doubling to 1 s, reset by the next success), logs once a second
// with the number of failures, and makes room: it asks the oldest plain HTTP
// connections that wait for their peer (half-sent requests, idle
// keep-alives) to close, or, when there are none, spends a descriptor kept
// in reserve to take the waiting connections off the backlog (answered 503
// and closed) so they do not pile up behind it.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <cstdint>
#include <string>

#include "inarow/common/expected.h"
#include "session_context.h"

namespace inarow::server {

class Listener {
 public:
  explicit Listener(boost::asio::io_context& ioc);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Bind and listen; then accept() starts taking connections for `shared`.
  inarow::expected<void, std::string> listen(const std::string& address, std::uint16_t port);
  std::uint16_t port() const { return port_; }
  void accept(SessionContext& shared);
  // Stop accepting (from any thread).
  void close();

 private:
  void do_accept();
  void on_accept_error(boost::system::error_code ec);
  // With the reserve descriptor closed, accept what waits and close it.
  int shed_backlog();
  void open_reserve();
  // At most one line a second; the counts are totals since the trouble
  // began, reset when a recovery is logged.
  bool log_due();

  boost::asio::io_context& ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer backoff_timer_;
  SessionContext* shared_ = nullptr;
  std::uint16_t port_ = 0;
  int reserve_fd_ = -1;
  std::chrono::milliseconds backoff_{0};
  // Since accepting last went wrong.
  bool troubled_ = false;
  std::uint64_t failures_ = 0;
  std::uint64_t evicted_ = 0;
  std::uint64_t shed_ = 0;
  std::chrono::steady_clock::time_point last_log_{};  // of the last line
};

}  // namespace inarow::server
