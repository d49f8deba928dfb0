#include "inarow/testing/ws_client.h"

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

namespace inarow::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

HttpReply http_get(std::uint16_t port, const std::string& target) {
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  http::request<http::empty_body> req{http::verb::get, target, 11};
  req.set(http::field::host, "127.0.0.1");
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  beast::error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_both, ec);
  return {static_cast<int>(res.result_int()), std::string(res[http::field::content_type]),
          res.body()};
}

struct WsClient::Impl {
  explicit Impl(bool t) : text(t) {}
  asio::io_context ioc;
  websocket::stream<beast::tcp_stream> ws{ioc};
  beast::flat_buffer buffer;
  bool text;
  bool last_sent_text = text;  // the server answers in the form last spoken
  bool reading = false;
  bool read_done = false;
  beast::error_code read_ec;
};

WsClient::WsClient(std::uint16_t port, bool text) : impl_(std::make_unique<Impl>(text)) {
  beast::get_lowest_layer(impl_->ws).connect(
      tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  impl_->ws.handshake("127.0.0.1:" + std::to_string(port), "/ws");
}

WsClient::~WsClient() {
  if (!closed_) drop();
}

std::uint64_t WsClient::send(v1::ClientMessage message) {
  if (message.request_id() == 0) message.set_request_id(next_request_id_++);
  std::string bytes;
  if (impl_->text) {
    (void)google::protobuf::util::MessageToJsonString(message, &bytes);
  } else {
    bytes = message.SerializeAsString();
  }
  send_raw(bytes, impl_->text);
  return message.request_id();
}

void WsClient::send_raw(const std::string& bytes, bool text) {
  impl_->last_sent_text = text;
  impl_->ws.text(text);
  beast::error_code ec;
  impl_->ws.write(asio::buffer(bytes), ec);
  if (ec) closed_ = true;
}

std::optional<v1::ServerMessage> WsClient::next(std::chrono::milliseconds timeout) {
  if (!backlog_.empty()) {
    auto m = std::move(backlog_.front());
    backlog_.pop_front();
    return m;
  }
  if (closed_) return std::nullopt;
  Impl& c = *impl_;
  if (!c.reading) {
    c.reading = true;
    c.read_done = false;
    c.ws.async_read(c.buffer, [&c](beast::error_code ec, std::size_t) {
      c.read_done = true;
      c.read_ec = ec;
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  c.ioc.restart();
  while (!c.read_done && std::chrono::steady_clock::now() < deadline) {
    c.ioc.run_one_until(deadline);
  }
  if (!c.read_done) return std::nullopt;
  c.reading = false;
  if (c.read_ec) {
    closed_ = true;
    close_code_ = c.ws.reason().code;
    return std::nullopt;
  }
  const std::string data = beast::buffers_to_string(c.buffer.data());
  c.buffer.consume(c.buffer.size());
  v1::ServerMessage m;
  bool ok = c.ws.got_text() ? google::protobuf::util::JsonStringToMessage(data, &m).ok()
                            : m.ParseFromString(data);
  EXPECT_TRUE(ok) << "unparsable server message";
  EXPECT_EQ(c.ws.got_text(), c.last_sent_text) << "the server answered in the other form";
  return m;
}

std::optional<v1::ServerMessage> WsClient::next_until(
    const std::function<bool(const v1::ServerMessage&)>& match, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) return std::nullopt;
    auto m = next(left);
    if (!m) return std::nullopt;
    if (match(*m)) return m;
  }
}

v1::ServerMessage WsClient::request(v1::ClientMessage message, std::chrono::milliseconds timeout) {
  const std::uint64_t id = send(std::move(message));
  std::deque<v1::ServerMessage> others;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::optional<v1::ServerMessage> answer;
  while (!answer) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) break;
    // Read from the socket only: queued messages are older than this request.
    std::deque<v1::ServerMessage> saved;
    saved.swap(backlog_);
    auto m = next(left);
    backlog_.swap(saved);
    if (!m) break;
    if (m->request_id() == id) {
      answer = std::move(m);
    } else {
      others.push_back(std::move(*m));
    }
  }
  for (auto& m : others)
    backlog_.push_back(std::move(m));
  if (!answer) {
    ADD_FAILURE() << "no answer to request " << id;
    return {};
  }
  return *answer;
}

v1::MatchEvent WsClient::next_event(std::chrono::milliseconds timeout) {
  auto m = next_until(
      [](const v1::ServerMessage& s) { return s.has_event() && !s.event().has_spectators(); },
      timeout);
  if (!m) {
    ADD_FAILURE() << "no match event came";
    return {};
  }
  return m->event();
}

v1::Welcome WsClient::hello(const std::string& name) {
  auto reply = request(hello_message(name));
  EXPECT_TRUE(reply.has_welcome()) << reply.DebugString();
  token_ = reply.welcome().token();
  player_id_ = reply.welcome().player_id();
  return reply.welcome();
}

v1::Welcome WsClient::resume(const std::string& token,
                             const std::vector<std::pair<std::string, std::uint64_t>>& cursors) {
  v1::ClientMessage m;
  m.mutable_hello()->set_protocol_version(1);
  m.mutable_hello()->set_token(token);
  for (const auto& [id, seq] : cursors) {
    auto* c = m.mutable_hello()->add_resume();
    c->set_match_id(id);
    c->set_last_seq(seq);
  }
  auto reply = request(m);
  EXPECT_TRUE(reply.has_welcome()) << reply.DebugString();
  token_ = token;
  player_id_ = reply.welcome().player_id();
  return reply.welcome();
}

v1::ServerMessage WsClient::play_bot(const std::string& variant, const std::string& level,
                                     v1::Side side, std::int64_t initial_ms,
                                     std::int64_t increment_ms) {
  v1::ClientMessage m;
  auto* p = m.mutable_play_bot();
  p->set_variant(variant);
  p->set_level(level);
  p->set_side(side);
  p->mutable_time_control()->set_initial_ms(initial_ms);
  p->mutable_time_control()->set_increment_ms(increment_ms);
  return request(m);
}

v1::ServerMessage WsClient::seek(const std::string& variant, std::int64_t initial_ms,
                                 std::int64_t increment_ms) {
  v1::ClientMessage m;
  m.mutable_seek()->set_variant(variant);
  m.mutable_seek()->mutable_time_control()->set_initial_ms(initial_ms);
  m.mutable_seek()->mutable_time_control()->set_increment_ms(increment_ms);
  return request(m);
}

v1::ServerMessage WsClient::move(const std::string& match_id, const std::string& move) {
  return request(move_message(match_id, move));
}

void WsClient::close() {
  beast::error_code ec;
  impl_->ws.close(websocket::close_code::normal, ec);
  closed_ = true;
}

void WsClient::drop() {
  beast::error_code ec;
  beast::get_lowest_layer(impl_->ws).socket().shutdown(tcp::socket::shutdown_both, ec);
  beast::get_lowest_layer(impl_->ws).socket().close(ec);
  closed_ = true;
}

v1::MatchEvent wait_event(WsClient& c, const std::string& match_id, v1::MatchEvent::KindCase kind,
                          std::chrono::milliseconds timeout) {
  auto m = c.next_until(
      [&](const v1::ServerMessage& s) {
        return s.has_event() && s.event().match_id() == match_id && s.event().kind_case() == kind;
      },
      timeout);
  EXPECT_TRUE(m) << "no event " << static_cast<int>(kind) << " for " << match_id;
  return m ? m->event() : v1::MatchEvent{};
}

}  // namespace inarow::testing
