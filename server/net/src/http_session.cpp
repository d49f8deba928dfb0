#include "http_session.h"

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <optional>

#include "game_record.h"
#include "web_assets.h"
#include "websocket_session.h"

namespace inarow::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

namespace {

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(Socket&& socket, SessionContext& shared)
      : stream_(std::move(socket)), shared_(shared) {}

  void run() {
    asio::dispatch(stream_.get_executor(),
                   beast::bind_front_handler(&HttpSession::do_read, shared_from_this()));
  }

 private:
  void do_read() {
    parser_.emplace();
    parser_->body_limit(16 * 1024);
    parser_->header_limit(16 * 1024);
    stream_.expires_after(std::chrono::seconds(30));
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&HttpSession::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    if (ec == http::error::end_of_stream) {
      stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
      return;
    }
    if (ec) return fail(ec, "http read");

    if (websocket::is_upgrade(parser_->get())) {
      if (parser_->get().target() != "/ws") {
        return respond(http::status::not_found, "text/plain", "WebSocket endpoint is /ws\n");
      }
      beast::error_code ignored;
      auto remote = stream_.socket().remote_endpoint(ignored);
      std::string address = remote.address().to_string();
      const bool admitted = shared_.admit(address);
      std::make_shared<WebSocketSession>(stream_.release_socket(), shared_, std::move(address),
                                         admitted)
          ->run(parser_->release());
      return;
    }
    answer(parser_->get());
  }

  void answer(const http::request<http::string_body>& req) {
    if (req.method() != http::verb::get) {
      return respond(http::status::method_not_allowed, "text/plain", "GET only\n");
    }
    const std::string_view target = req.target();
    if (target == "/healthz") return respond(http::status::ok, "text/plain", "ok\n");
    if (target == "/metrics") {
      return respond(http::status::ok, "text/plain; version=0.0.4", shared_.metrics.render());
    }
    constexpr std::string_view kMatches = "/matches/";
    if (target.starts_with(kMatches) && target.size() > kMatches.size()) {
      const std::string id(target.substr(kMatches.size()));
      if (auto record = shared_.store.load_match(id)) {
        return respond(http::status::ok, "application/json", game_record_json(std::move(*record)));
      }
      return respond(http::status::not_found, "application/json",
                     "{\"error\":\"no match " + id + "\"}");
    }
    if (auto asset = find_web_asset(target)) {  // the browser client, see web_assets.h
      return respond(http::status::ok, asset->content_type, std::string(asset->body));
    }
    respond(http::status::not_found, "text/plain", "not found\n");
  }

  void respond(http::status status, std::string_view type, std::string body) {
    auto res =
        std::make_shared<http::response<http::string_body>>(status, parser_->get().version());
    res->set(http::field::server, "inarow-server");
    res->set(http::field::content_type, type);
    res->keep_alive(parser_->get().keep_alive());
    res->body() = std::move(body);
    res->prepare_payload();
    response_ = res;
    http::async_write(
        stream_, *res,
        beast::bind_front_handler(&HttpSession::on_write, shared_from_this(), res->keep_alive()));
  }

  void on_write(bool keep_alive, beast::error_code ec, std::size_t) {
    if (ec) return fail(ec, "http write");
    response_.reset();
    if (!keep_alive) {
      stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
      return;
    }
    do_read();
  }

  beast::basic_stream<tcp, ConnectionExecutor> stream_;
  beast::flat_buffer buffer_;
  SessionContext& shared_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<http::response<http::string_body>> response_;
};

}  // namespace

void serve_http(Socket&& socket, SessionContext& shared) {
  std::make_shared<HttpSession>(std::move(socket), shared)->run();
}

}  // namespace inarow::server
