#include "listener.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <cerrno>

#include "http_session.h"

namespace inarow::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using ErrorCode = boost::system::error_code;

namespace {

constexpr std::chrono::milliseconds kFirstBackoff{50};
constexpr std::chrono::milliseconds kMaxBackoff{1000};
constexpr std::chrono::seconds kLogInterval{1};
constexpr int kMaxShedPerRound = 256;
constexpr std::size_t kEvictPerRound = 16;

// Out of descriptors or kernel memory: retrying at once cannot succeed.
bool out_of_resources(const ErrorCode& ec) {
  if (ec.category() != boost::system::system_category()) return false;
  const int e = ec.value();
  return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
}

// The peer gave up before we took it: nothing is wrong with us.
bool peer_side(const ErrorCode& ec) {
  return ec == asio::error::connection_aborted || ec == asio::error::connection_reset ||
         ec == asio::error::try_again || ec == asio::error::would_block;
}

}  // namespace

Listener::Listener(asio::io_context& ioc)
    : ioc_(ioc), acceptor_(asio::make_strand(ioc)), backoff_timer_(acceptor_.get_executor()) {}

Listener::~Listener() {
  if (reserve_fd_ >= 0) ::close(reserve_fd_);
}

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
  // shed_backlog() accepts on the bare descriptor and must not block.
  if (!ec) acceptor_.native_non_blocking(true, ec);
  if (ec) {
    return inarow::unexpected(
        fmt::format("cannot listen on {}:{}: {}", address, port, ec.message()));
  }
  port_ = acceptor_.local_endpoint().port();
  open_reserve();
  return {};
}

void Listener::open_reserve() {
  if (reserve_fd_ < 0) reserve_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
}

void Listener::accept(SessionContext& shared) {
  shared_ = &shared;
  do_accept();
}

void Listener::do_accept() {
  // Each connection gets its own strand.
  acceptor_.async_accept(asio::make_strand(ioc_), [this](ErrorCode ec, Socket s) {
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
      if (!peer_side(ec)) return on_accept_error(ec);
    } else {
      if (troubled_ && log_due()) {
        spdlog::warn("accept_recovered failures={} evicted={} shed={}", failures_, evicted_, shed_);
        troubled_ = false;
        failures_ = evicted_ = shed_ = 0;
      }
      backoff_ = std::chrono::milliseconds{0};
      open_reserve();
      // Small frames go out at once: Nagle would hold an ack behind an event.
      ErrorCode ignored;
      s.set_option(tcp::no_delay(true), ignored);
      serve_http(std::move(s), *shared_);
    }
    do_accept();
  });
}

void Listener::on_accept_error(ErrorCode ec) {
  ++failures_;
  if (out_of_resources(ec)) {
    // Room is made by the oldest HTTP connections that wait for their peer
    // (half-sent requests, idle keep-alives); only when there are none are
    // the connections in the backlog turned away.
    const auto evicted = shared_->evict_waiting_http(kEvictPerRound);
    evicted_ += evicted;
    if (evicted == 0) shed_ += static_cast<std::uint64_t>(shed_backlog());
  }
  backoff_ = std::clamp(backoff_ * 2, kFirstBackoff, kMaxBackoff);
  troubled_ = true;
  if (log_due()) {
    spdlog::warn("accept_failed error=\"{}\" failures={} evicted={} shed={} backoff_ms={}",
                 ec.message(), failures_, evicted_, shed_, backoff_.count());
  }
  backoff_timer_.expires_after(backoff_);
  backoff_timer_.async_wait([this](ErrorCode wait_ec) {
    if (wait_ec || !acceptor_.is_open()) return;
    do_accept();
  });
}

bool Listener::log_due() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_log_ < kLogInterval) return false;
  last_log_ = now;
  return true;
}

int Listener::shed_backlog() {
  // The reserve descriptor makes room for one accept at a time: a waiting
  // connection is told we are full and closed, so it neither waits in the
  // backlog nor keeps the acceptor readable. Without the reserve (another
  // thread took the descriptor back) there is nothing to do but wait.
  if (reserve_fd_ < 0) return 0;
  ::close(reserve_fd_);
  reserve_fd_ = -1;
  static constexpr char kFull[] =
      "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
  int shed = 0;
  while (shed < kMaxShedPerRound) {
    const int fd = ::accept4(acceptor_.native_handle(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) break;
    [[maybe_unused]] const auto sent =
        ::send(fd, kFull, sizeof kFull - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    ::close(fd);
    ++shed;
  }
  open_reserve();
  return shed;
}

void Listener::close() {
  // On the acceptor's strand, where its accept handler runs and re-arms:
  // closing it from another thread would race that.
  asio::post(acceptor_.get_executor(), [this] {
    ErrorCode ignored;
    backoff_timer_.cancel();
    acceptor_.close(ignored);
  });
}

}  // namespace inarow::server
