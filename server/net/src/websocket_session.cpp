#include "websocket_session.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

namespace inarow::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace v1 = ::inarow::v1;

namespace {
constexpr std::size_t kMaxQueuedMessages = 4096;  // a reader this far behind is cut off
}  // namespace

WebSocketSession::WebSocketSession(Socket&& socket, SessionContext& shared, std::string address,
                                   bool admitted)
    : ws_(std::move(socket)),
      shared_(shared),
      address_(std::move(address)),
      admitted_(admitted),
      limiter_(shared.config.rate_per_second, shared.config.rate_burst) {
  ++shared_.sessions;
  if (admitted_) {
    shared_.metrics.connections_open.fetch_add(1);
    shared_.metrics.connections_total.fetch_add(1);
  }
}

WebSocketSession::~WebSocketSession() {
  shared_.discharge(this);
  if (admitted_) {
    shared_.release(address_);
    shared_.metrics.connections_open.fetch_sub(1);
  }
  --shared_.sessions;
}

void WebSocketSession::run(http::request<http::string_body> req) {
  shared_.enlist(shared_from_this());
  websocket::stream_base::timeout timeouts;
  timeouts.handshake_timeout = shared_.config.handshake_timeout;
  timeouts.idle_timeout = shared_.config.idle_timeout;
  timeouts.keep_alive_pings = true;
  ws_.set_option(timeouts);
  ws_.set_option(websocket::stream_base::decorator(
      [](websocket::response_type& res) { res.set(http::field::server, "inarow-server"); }));
  ws_.read_message_max(shared_.config.max_frame_bytes);
  ws_.async_accept(req,
                   beast::bind_front_handler(&WebSocketSession::on_accept, shared_from_this()));
}

void WebSocketSession::deliver(OutgoingPtr message) {
  // Hop onto this session's strand before touching the queue.
  asio::post(ws_.get_executor(),
             [self = shared_from_this(), message = std::move(message)] { self->enqueue(message); });
}

void WebSocketSession::deliver_all(std::vector<OutgoingPtr> messages) {
  asio::post(ws_.get_executor(), [self = shared_from_this(), messages = std::move(messages)] {
    for (const auto& m : messages)
      self->enqueue(m);
  });
}

void WebSocketSession::close(CloseKind kind) {
  asio::post(ws_.get_executor(), [self = shared_from_this(), kind] {
    self->close_when_sent(kind == CloseKind::going_away ? websocket::close_code::going_away
                                                        : websocket::close_code::policy_error);
  });
}

void WebSocketSession::on_accept(beast::error_code ec) {
  if (ec) return fail(ec, "websocket accept");
  if (!admitted_) {
    // Too many connections from this address: say why, then close.
    shared_.metrics.connections_rejected.fetch_add(1);
    enqueue(
        make_error(shared_.metrics, 0,
                   {ProtocolError::too_many_connections, "too many connections from " + address_}));
    close_when_sent(websocket::close_code::policy_error);
  }
  do_read();
}

void WebSocketSession::do_read() {
  ws_.async_read(buffer_,
                 beast::bind_front_handler(&WebSocketSession::on_read, shared_from_this()));
}

void WebSocketSession::on_read(beast::error_code ec, std::size_t) {
  if (ec) {
    // A frame over the limit: Beast has already closed with 1009 (too big).
    fail(ec, "websocket read");
    gone();
    return;
  }
  text_ = ws_.got_text();
  handle_frame(
      std::string_view(static_cast<const char*>(buffer_.cdata().data()), buffer_.cdata().size()));
  // Emptied before the next read is started: that read may fill it at once.
  buffer_.consume(buffer_.size());
  do_read();
}

// One frame, parsed where it lies in the read buffer. It is parsed before
// the rate limit is asked, so that a refusal answers its request id too.
void WebSocketSession::handle_frame(std::string_view data) {
  if (!admitted_ || close_requested_) return;

  v1::ClientMessage msg;
  const auto failure = parse_frame(data, text_, msg);
  const std::uint64_t request_id =
      failure && failure->code == ProtocolError::malformed ? 0 : msg.request_id();

  if (!limiter_.take(SteadyClock::now())) {
    send_error(request_id, {ProtocolError::rate_limited, "too many messages; slow down"});
    if (++strikes_ >= shared_.config.rate_strikes) {
      spdlog::info("connection_closed address={} reason=flooding", address_);
      close_when_sent(websocket::close_code::policy_error);
    }
    return;
  }

  if (failure) {
    send_error(request_id, *failure);
  } else {
    shared_.router.receive(shared_from_this(), std::move(msg));
  }
}

void WebSocketSession::send_error(std::uint64_t request_id, const Failure& f) {
  enqueue(make_error(shared_.metrics, request_id, f));
}

void WebSocketSession::enqueue(const OutgoingPtr& message) {
  if (close_started_) return;
  if (queue_.size() >= kMaxQueuedMessages) {
    spdlog::info("connection_closed address={} reason=\"not reading\"", address_);
    // The frame being written stays until its write completes: the write
    // reads its bytes, and on_write takes it off the queue.
    queue_.erase(queue_.begin() + (writing_ ? 1 : 0), queue_.end());
    close_when_sent(websocket::close_code::policy_error);
    return;
  }
  queue_.emplace_back(message, text_);
  if (!writing_) do_write();
}

void WebSocketSession::do_write() {
  writing_ = true;
  ws_.text(queue_.front().second);
  ws_.async_write(asio::buffer(queue_.front().first->payload(queue_.front().second)),
                  beast::bind_front_handler(&WebSocketSession::on_write, shared_from_this()));
}

void WebSocketSession::on_write(beast::error_code ec, std::size_t) {
  writing_ = false;
  if (ec) {
    queue_.clear();
    return fail(ec, "websocket write");
  }
  queue_.pop_front();
  if (!queue_.empty()) return do_write();
  if (close_requested_) do_close();
}

// Close once the queue has gone out: at once when nothing is being written,
// else from on_write when the queue is empty (a queue that is not empty is
// always being written).
void WebSocketSession::close_when_sent(websocket::close_code code) {
  close_code_ = code;
  close_requested_ = true;
  do_close();
}

void WebSocketSession::do_close() {
  if (close_started_ || writing_) return;
  close_started_ = true;
  ws_.async_close(close_code_, [self = shared_from_this()](beast::error_code ec) {
    if (ec) fail(ec, "websocket close");
  });
}

void WebSocketSession::gone() {
  if (gone_) return;
  gone_ = true;
  if (admitted_) shared_.router.disconnected(shared_from_this());
}

}  // namespace inarow::server
