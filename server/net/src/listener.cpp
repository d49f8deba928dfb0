#include "listener.h"

#include <fmt/format.h>

#include <boost/asio/post.hpp>

#include "http_session.h"

namespace inarow::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using ErrorCode = boost::system::error_code;

Listener::Listener(asio::io_context& ioc) : ioc_(ioc), acceptor_(asio::make_strand(ioc)) {}

inarow::expected<void, std::string> Listener::listen(const std::string& address,
                                                     std::uint16_t port) {
  ErrorCode ec;
  const auto ip = asio::ip::make_address(address, ec);
  if (ec) return inarow::unexpected("bad address " + address + ": " + ec.message());
  const tcp::endpoint endpoint(ip, port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return inarow::unexpected(
        fmt::format("cannot listen on {}:{}: {}", address, port, ec.message()));
  }
  port_ = acceptor_.local_endpoint().port();
  return {};
}

void Listener::accept(SessionContext& shared) {
  shared_ = &shared;
  do_accept();
}

void Listener::do_accept() {
  // Each connection gets its own strand.
  acceptor_.async_accept(asio::make_strand(ioc_), [this](ErrorCode ec, Socket s) {
    if (ec) {
      if (ec != asio::error::operation_aborted) fail(ec, "accept");
      if (!acceptor_.is_open()) return;
    } else {
      // Small frames go out at once: Nagle would hold an ack behind an event.
      ErrorCode ignored;
      s.set_option(tcp::no_delay(true), ignored);
      serve_http(std::move(s), *shared_);
    }
    do_accept();
  });
}

void Listener::close() {
  // On the acceptor's strand, where its accept handler runs and re-arms:
  // closing it from another thread would race that.
  asio::post(acceptor_.get_executor(), [this] {
    ErrorCode ignored;
    acceptor_.close(ignored);
  });
}

}  // namespace inarow::server
