// The listener: accepts TCP connections, each on a strand of its own, and
// hands them to an HTTP session.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <string>

#include "inarow/common/expected.h"
#include "session_context.h"

namespace inarow::server {

class Listener {
 public:
  explicit Listener(boost::asio::io_context& ioc);

  // Bind and listen; then accept() starts taking connections for `shared`.
  inarow::expected<void, std::string> listen(const std::string& address, std::uint16_t port);
  std::uint16_t port() const { return port_; }
  void accept(SessionContext& shared);
  // Stop accepting (from any thread).
  void close();

 private:
  void do_accept();

  boost::asio::io_context& ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  SessionContext* shared_ = nullptr;
  std::uint16_t port_ = 0;
};

}  // namespace inarow::server
