#include "http_session.h"

#include <spdlog/spdlog.h>

#include <array>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <optional>

#include "game_history.h"
#include "game_record.h"
#include "inarow/common/json.h"
#include "web_assets.h"
#include "websocket_session.h"

namespace inarow::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

namespace {

constexpr std::size_t kMaxRequestLine = 8 * 1024;
constexpr std::size_t kMaxHeader = 16 * 1024;
constexpr std::size_t kMaxBody = 16 * 1024;
// After an error answer: how long the client's leftover bytes are read.
constexpr std::chrono::seconds kLinger{2};

class HttpSession : public Evictable, public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(Socket&& socket, SessionContext& shared, std::string address)
      : stream_(std::move(socket)), shared_(shared), address_(std::move(address)) {}
  ~HttpSession() override {
    shared_.discharge_http(key_);
    shared_.release_http(address_);
  }

  void run() {
    key_ = shared_.enlist_http(weak_from_this());
    asio::dispatch(stream_.get_executor(),
                   beast::bind_front_handler(&HttpSession::do_read, shared_from_this()));
  }

  // Out of descriptors: a connection waiting for its peer goes first.
  void evict() override {
    asio::post(stream_.get_executor(), [self = shared_from_this()] {
      if (!self->waiting_) return;
      beast::error_code ignored;
      self->stream_.socket().close(ignored);
    });
  }

 private:
  void do_read() {
    waiting_ = true;
    parser_.emplace();
    parser_->body_limit(kMaxBody);
    parser_->header_limit(kMaxHeader);
    stream_.expires_after(shared_.config.http_request_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&HttpSession::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    waiting_ = false;
    if (ec == http::error::end_of_stream) {
      stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
      return;
    }
    if (ec == http::error::header_limit) return refuse_oversized_header();
    if (ec == http::error::body_limit) {
      return respond_error(http::status::payload_too_large, "request body too large\n");
    }
    // A request cut short by the peer, or a timeout: nobody to answer.
    if (ec == http::error::partial_message) return;
    if (ec.category() == http::make_error_code(http::error::bad_target).category()) {
      return respond_error(http::status::bad_request, "bad request: " + ec.message() + "\n");
    }
    if (ec) return fail(ec, "http read");

    const auto& req = parser_->get();
    if (req.target().size() > kMaxRequestLine) {
      return respond_error(http::status::uri_too_long, "URI too long\n");
    }
    if (websocket::is_upgrade(req)) {
      if (!is_ws_target(req.target())) {
        return respond(http::status::not_found, "text/plain", "WebSocket endpoint is /ws\n");
      }
      stream_.expires_never();
      const bool admitted = shared_.admit(address_);
      std::make_shared<WebSocketSession>(stream_.release_socket(), shared_, address_, admitted)
          ->run(parser_->release());
      return;
    }
    answer(req);
  }

  static bool is_ws_target(std::string_view target) {
    return target == "/ws" || target.starts_with("/ws?");
  }

  // Beast stops at 16 KiB without the end of the header and does not say
  // where. The request line is parsed once it is whole: no target yet means
  // the line did not fit.
  void refuse_oversized_header() {
    const auto target = parser_->get().target();
    if (target.empty() || target.size() > kMaxRequestLine) {
      return respond_error(http::status::uri_too_long, "URI too long\n");
    }
    respond_error(http::status::request_header_fields_too_large, "request headers too large\n");
  }

  void answer(const http::request<http::string_body>& req) {
    const std::string_view target = req.target();
    if (is_ws_target(target)) {
      // A WebSocket endpoint asked without the upgrade.
      auto res = make_response(http::status::upgrade_required, "text/plain",
                               "this is a WebSocket endpoint: upgrade to websocket\n",
                               req.version(), req.keep_alive());
      res->set(http::field::upgrade, "websocket");
      res->set(http::field::connection, req.keep_alive() ? "Upgrade" : "Upgrade, close");
      return send(std::move(res));
    }
    if (req.method() != http::verb::get) {
      auto res = make_response(http::status::method_not_allowed, "text/plain", "GET only\n",
                               req.version(), req.keep_alive());
      res->set(http::field::allow, "GET");
      return send(std::move(res));
    }
    if (target == "/healthz") {
      // Ready unless a service the server needs is lost: a load balancer
      // sends no new clients here meanwhile (moves made now would pause).
      if (!shared_.metrics.store_ready.load()) {
        return respond(http::status::service_unavailable, "text/plain",
                       "not ready: the store's last commit failed\n");
      }
      if (!shared_.metrics.redis_ready.load()) {
        return respond(http::status::service_unavailable, "text/plain",
                       "not ready: Redis does not answer\n");
      }
      return respond(http::status::ok, "text/plain", "ok\n");
    }
    if (target == "/metrics") {
      return respond(http::status::ok, "text/plain; version=0.0.4", shared_.metrics.render());
    }
    constexpr std::string_view kMatches = "/matches/";
    if (target.starts_with(kMatches) && target.size() > kMatches.size()) {
      return answer_record(std::string(target.substr(kMatches.size())));
    }
    constexpr std::string_view kGame = "/game/";
    if (target.starts_with(kGame) && target.size() > kGame.size()) {
      const std::string_view rest = target.substr(kGame.size(), target.find('?') - kGame.size());
      for (std::string_view ext : {std::string_view(".txt"), std::string_view(".psq")}) {
        if (rest.size() > ext.size() && rest.ends_with(ext)) {
          return answer_export(std::string(rest.substr(0, rest.size() - ext.size())),
                               ext == ".psq");
        }
      }
      // A link to a game: the page, which opens its replay.
      if (!rest.empty() && rest.find('/') == std::string_view::npos) {
        if (auto page = find_web_asset("/")) {
          return respond(http::status::ok, page->content_type, std::string(page->body));
        }
      }
    }
    if (auto asset = find_web_asset(target)) {  // the browser client, see web_assets.h
      return respond(http::status::ok, asset->content_type, std::string(asset->body));
    }
    respond(http::status::not_found, "text/plain", "not found\n");
  }

  // The store is read on the record readers, not on this I/O thread; the
  // answer comes back to the session's strand. Nothing is read from the
  // peer meanwhile (one request at a time).
  void answer_record(std::string id) {
    asio::post(shared_.record_readers, [self = shared_from_this(), id = std::move(id)]() mutable {
      // A private game is not served: no player is behind the request.
      auto record = find_match(self->shared_.store, {}, id);
      std::string json = record ? game_record_json(std::move(*record)) : std::string{};
      asio::post(
          self->stream_.get_executor(),
          [self, id = std::move(id), found = record.has_value(), json = std::move(json)]() mutable {
            if (found) return self->respond(http::status::ok, "application/json", std::move(json));
            self->respond(http::status::not_found, "application/json",
                          "{\"error\":" + json::quote("no match " + id) + "}");
          });
    });
  }

  // GET /game/<id>.txt or .psq: a finished public game, as a download.
  // (Without a player behind the request, private games are not served.)
  void answer_export(std::string id, bool psq) {
    asio::post(shared_.record_readers, [self = shared_from_this(), id = std::move(id), psq] {
      auto game = find_game(self->shared_.store, {}, id);
      http::status status = http::status::ok;
      std::string body;
      if (!game) {
        status = game.error().code == ProtocolError::match_not_over ? http::status::conflict
                                                                    : http::status::not_found;
        body = game.error().message + "\n";
      } else if (!psq) {
        body = game_text(*game);
      } else if (auto text = game_psq(*game)) {
        body = std::move(*text);
      } else {
        status = http::status::not_found;
        body = "no .psq record for " + game->variant + ": five in a row without gravity only\n";
      }
      asio::post(self->stream_.get_executor(), [self, status, body = std::move(body), id, psq] {
        const auto& req = self->parser_->get();
        auto res = make_response(status, "text/plain; charset=utf-8", body, req.version(),
                                 req.keep_alive());
        if (status == http::status::ok) {
          res->set(http::field::content_disposition,
                   "attachment; filename=\"" + id + (psq ? ".psq" : ".txt") + "\"");
        }
        self->send(std::move(res));
      });
    });
  }

  using Response = http::response<http::string_body>;

  static std::shared_ptr<Response> make_response(http::status status, std::string_view type,
                                                 std::string body, unsigned version,
                                                 bool keep_alive) {
    auto res = std::make_shared<Response>(status, version);
    res->set(http::field::server, "inarow-server");
    res->set(http::field::content_type, type);
    res->keep_alive(keep_alive);
    res->body() = std::move(body);
    res->prepare_payload();
    return res;
  }

  // An answer to the request just read.
  void respond(http::status status, std::string_view type, std::string body) {
    const auto& req = parser_->get();
    send(make_response(status, type, std::move(body), req.version(), req.keep_alive()));
  }

  // An answer to a request that could not be read: HTTP/1.1, then close.
  void respond_error(http::status status, std::string body) {
    send(make_response(status, "text/plain", std::move(body), 11, false));
  }

  void send(std::shared_ptr<Response> res) {
    response_ = res;
    const bool keep_alive = res->keep_alive();
    stream_.expires_after(shared_.config.http_request_timeout);
    http::async_write(
        stream_, *res,
        beast::bind_front_handler(&HttpSession::on_write, shared_from_this(), keep_alive));
  }

  void on_write(bool keep_alive, beast::error_code ec, std::size_t) {
    if (ec) return fail(ec, "http write");
    response_.reset();
    if (!keep_alive) {
      stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
      // Closing with unread bytes would send a reset, which may reach the
      // client before it reads the answer: read what is left first.
      stream_.expires_after(kLinger);
      waiting_ = true;
      return drain();
    }
    do_read();
  }

  void drain() {
    stream_.async_read_some(asio::buffer(scratch_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (!ec) self->drain();
                            });
  }

  beast::basic_stream<tcp, ConnectionExecutor> stream_;
  beast::flat_buffer buffer_;
  SessionContext& shared_;
  std::string address_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<Response> response_;
  std::array<char, 4096> scratch_{};
  std::uint64_t key_ = 0;
  bool waiting_ = false;  // a read for the peer is pending
};

}  // namespace

void serve_http(Socket&& socket, SessionContext& shared) {
  beast::error_code ec;
  const auto remote = socket.remote_endpoint(ec);
  if (ec) return;  // gone already
  std::string address = remote.address().to_string();
  if (!shared.admit_http(address)) {
    // Too many connections from this address: closed at once, unread.
    spdlog::debug("http_refused address={} reason=\"too many connections\"", address);
    socket.close(ec);
    return;
  }
  std::make_shared<HttpSession>(std::move(socket), shared, std::move(address))->run();
}

}  // namespace inarow::server
