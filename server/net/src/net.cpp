// The network side: the listener, plain HTTP (health, metrics, game records)
// and the WebSocket sessions at /ws. The only translation unit with Beast.
#include <google/protobuf/util/json_util.h>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <cerrno>
#include <cstring>
#include <deque>
#include <latch>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "inarow/server/hub.h"
#include "inarow/server/server.h"
#include "inarow/server/sqlite_store.h"
#include "web_assets.h"

namespace inarow::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace v1 = ::inarow::v1;
using tcp = asio::ip::tcp;

namespace {

// Every connection runs on a strand of its own, named by type: Asio's
// type-erased any_io_executor would dispatch through a function table and
// copy itself into every operation of every frame.
using ConnectionExecutor = asio::strand<asio::io_context::executor_type>;
using Socket = tcp::socket::rebind_executor<ConnectionExecutor>::other;

// Report a failure, except the ones that only mean "we are closing".
void fail(beast::error_code ec, const char* what) {
  if (ec == asio::error::operation_aborted || ec == websocket::error::closed ||
      ec == beast::error::timeout || ec == asio::error::eof ||
      ec == asio::error::connection_reset) {
    spdlog::debug("io_closed op=\"{}\" error=\"{}\"", what, ec.message());
    return;
  }
  spdlog::info("io_error op=\"{}\" error=\"{}\"", what, ec.message());
}

// What sessions share: the config, the hub, the per-address counts.
struct Shared {
  const ServerConfig& config;
  Metrics& metrics;
  Hub& hub;
  std::atomic<int> sessions{0};
  std::mutex mutex;
  std::map<std::string, int> per_address;
  // Every WebSocket session, so a stop can close those that never said hello.
  std::unordered_map<Peer*, std::weak_ptr<Peer>> live;

  void enlist(const std::shared_ptr<Peer>& p) {
    std::lock_guard lock(mutex);
    live[p.get()] = p;
  }
  void discharge(Peer* p) {
    std::lock_guard lock(mutex);
    live.erase(p);
  }
  void close_all() {
    std::vector<std::shared_ptr<Peer>> peers;
    {
      std::lock_guard lock(mutex);
      for (auto& [key, weak] : live) {
        if (auto p = weak.lock()) peers.push_back(std::move(p));
      }
    }
    for (auto& p : peers)
      p->close(CloseKind::going_away);
  }

  bool acquire(const std::string& address) {
    std::lock_guard lock(mutex);
    int& n = per_address[address];
    if (n >= config.max_connections_per_ip) return false;
    ++n;
    return true;
  }
  void release(const std::string& address) {
    std::lock_guard lock(mutex);
    if (--per_address[address] <= 0) per_address.erase(address);
  }
};

// Messages per connection: a bucket refilled at `rate` per second.
class TokenBucket {
 public:
  TokenBucket(double rate, double burst) : rate_(rate), burst_(burst), tokens_(burst) {}
  bool take(TimePoint now) {
    const double dt = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    tokens_ = std::min(burst_, tokens_ + dt * rate_);
    if (tokens_ < 1.0) return false;
    tokens_ -= 1.0;
    return true;
  }

 private:
  double rate_, burst_, tokens_;
  TimePoint last_ = SteadyClock::now();
};

constexpr std::size_t kMaxQueuedMessages = 4096;  // a reader this far behind is cut off

class WsSession : public Peer, public std::enable_shared_from_this<WsSession> {
 public:
  WsSession(Socket&& socket, Shared& shared, std::string address, bool admitted)
      : ws_(std::move(socket)),
        shared_(shared),
        address_(std::move(address)),
        admitted_(admitted),
        bucket_(shared.config.rate_per_second, shared.config.rate_burst) {
    ++shared_.sessions;
    if (admitted_) {
      shared_.metrics.connections_open.fetch_add(1);
      shared_.metrics.connections_total.fetch_add(1);
    }
  }

  ~WsSession() override {
    shared_.discharge(this);
    if (admitted_) {
      shared_.release(address_);
      shared_.metrics.connections_open.fetch_sub(1);
    }
    --shared_.sessions;
  }

  void run(http::request<http::string_body> req) {
    shared_.enlist(shared_from_this());
    websocket::stream_base::timeout timeouts;
    timeouts.handshake_timeout = shared_.config.handshake_timeout;
    timeouts.idle_timeout = shared_.config.idle_timeout;
    timeouts.keep_alive_pings = true;
    ws_.set_option(timeouts);
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& res) { res.set(http::field::server, "inarow-server"); }));
    ws_.read_message_max(shared_.config.max_frame_bytes);
    ws_.async_accept(req, beast::bind_front_handler(&WsSession::on_accept, shared_from_this()));
  }

  void deliver(std::shared_ptr<const Outgoing> message) override {
    // Hop onto this session's strand before touching the queue.
    asio::post(ws_.get_executor(), [self = shared_from_this(), message = std::move(message)] {
      self->enqueue(message);
    });
  }

  void deliver_all(std::vector<std::shared_ptr<const Outgoing>> messages) override {
    asio::post(ws_.get_executor(), [self = shared_from_this(), messages = std::move(messages)] {
      for (const auto& m : messages)
        self->enqueue(m);
    });
  }

  void close(CloseKind kind) override {
    asio::post(ws_.get_executor(), [self = shared_from_this(), kind] {
      self->close_code_ = kind == CloseKind::going_away ? websocket::close_code::going_away
                                                        : websocket::close_code::policy_error;
      self->close_requested_ = true;
      if (self->queue_.empty()) self->do_close();
    });
  }

 private:
  void on_accept(beast::error_code ec) {
    if (ec) return fail(ec, "websocket accept");
    if (!admitted_) {
      // Too many connections from this address: say why, then close.
      shared_.metrics.connections_rejected.fetch_add(1);
      enqueue(make_error(
          shared_.metrics, 0,
          {ProtocolError::too_many_connections, "too many connections from " + address_}));
      close_code_ = websocket::close_code::policy_error;
      close_requested_ = true;
      do_read();
      return;
    }
    do_read();
  }

  void do_read() {
    ws_.async_read(buffer_, beast::bind_front_handler(&WsSession::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
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

  // One frame, parsed where it lies in the read buffer.
  void handle_frame(std::string_view data) {
    if (!admitted_ || close_requested_) return;

    if (!bucket_.take(SteadyClock::now())) {
      send_error(0, {ProtocolError::rate_limited, "too many messages; slow down"});
      if (++strikes_ >= shared_.config.rate_strikes) {
        spdlog::info("connection_closed address={} reason=flooding", address_);
        close_code_ = websocket::close_code::policy_error;
        close_requested_ = true;
        if (queue_.empty()) do_close();
      }
      return;
    }

    v1::ClientMessage msg;
    bool parsed;
    if (text_) {
      google::protobuf::util::JsonParseOptions options;
      options.ignore_unknown_fields = true;  // an unknown message is reported as such below
      parsed = google::protobuf::util::JsonStringToMessage(data, &msg, options).ok();
    } else {
      parsed = msg.ParseFromArray(data.data(), static_cast<int>(data.size()));
    }
    if (!parsed) {
      send_error(0, {ProtocolError::malformed,
                     text_ ? "not a ClientMessage in JSON" : "not a ClientMessage in protobuf"});
    } else if (msg.body_case() == v1::ClientMessage::BODY_NOT_SET) {
      send_error(msg.request_id(), {ProtocolError::unknown_message, "unknown message"});
    } else {
      shared_.hub.receive(shared_from_this(), std::move(msg));
    }
  }

  void send_error(std::uint64_t request_id, const Failure& f) {
    enqueue(make_error(shared_.metrics, request_id, f));
  }

  void enqueue(const std::shared_ptr<const Outgoing>& message) {
    if (close_started_) return;
    if (queue_.size() >= kMaxQueuedMessages) {
      spdlog::info("connection_closed address={} reason=\"not reading\"", address_);
      queue_.clear();
      close_code_ = websocket::close_code::policy_error;
      close_requested_ = true;
      if (!writing_) do_close();
      return;
    }
    queue_.emplace_back(message, text_);
    if (!writing_) do_write();
  }

  void do_write() {
    writing_ = true;
    ws_.text(queue_.front().second);
    ws_.async_write(asio::buffer(queue_.front().first->payload(queue_.front().second)),
                    beast::bind_front_handler(&WsSession::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    writing_ = false;
    if (ec) {
      queue_.clear();
      return fail(ec, "websocket write");
    }
    queue_.pop_front();
    if (!queue_.empty()) return do_write();
    if (close_requested_) do_close();
  }

  void do_close() {
    if (close_started_ || writing_) return;
    close_started_ = true;
    ws_.async_close(close_code_, [self = shared_from_this()](beast::error_code ec) {
      if (ec) fail(ec, "websocket close");
    });
  }

  void gone() {
    if (gone_) return;
    gone_ = true;
    if (admitted_) shared_.hub.disconnected(shared_from_this());
  }

  // On the bare socket: the websocket keeps its own timers (handshake, idle
  // pings), so tcp_stream's per-operation timeout machinery would only cost;
  // no permessage-deflate (frames are a few dozen bytes).
  websocket::stream<Socket, false> ws_;
  beast::flat_buffer buffer_;
  Shared& shared_;
  std::string address_;
  bool admitted_;
  TokenBucket bucket_;
  int strikes_ = 0;
  bool text_ = false;  // the form of the last frame received; answers follow it
  std::deque<std::pair<std::shared_ptr<const Outgoing>, bool>> queue_;  // and in which form
  bool writing_ = false;
  bool close_requested_ = false;
  bool close_started_ = false;
  bool gone_ = false;
  websocket::close_code close_code_ = websocket::close_code::normal;
};

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(Socket&& socket, Shared& shared) : stream_(std::move(socket)), shared_(shared) {}

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
      const bool admitted = shared_.acquire(address);
      std::make_shared<WsSession>(stream_.release_socket(), shared_, std::move(address), admitted)
          ->run(parser_->release());
      return;
    }
    route(parser_->get());
  }

  void route(const http::request<http::string_body>& req) {
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
      if (auto json = shared_.hub.match_record_json(id)) {
        return respond(http::status::ok, "application/json", std::move(*json));
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
  Shared& shared_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<http::response<http::string_body>> response_;
};

// Names every bot worker "inarow-bot" (top -H, the tests) and sets its nice
// value. Each worker takes one of these tasks and holds it until all have
// started, so no worker is left out or visited twice.
void tune_bot_threads(asio::thread_pool& pool, int threads, int nice) {
  auto all = std::make_shared<std::latch>(threads);  // outlives the last arrival
  for (int i = 0; i < threads; ++i) {
    asio::post(pool, [all, nice] {
      pthread_setname_np(pthread_self(), "inarow-bot");
      if (nice != 0 && setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), nice) != 0) {
        spdlog::warn("bot_nice_failed nice={} error=\"{}\"", nice, std::strerror(errno));
      }
      all->arrive_and_wait();
    });
  }
  all->wait();
}

}  // namespace

// ------------------------------------------------------------ Server

struct Server::Impl {
  explicit Impl(ServerConfig c)
      : config(std::move(c)),
        ioc(std::max(1, config.threads)),
        bot_pool(static_cast<std::size_t>(std::max(1, config.bot_threads))),
        acceptor(asio::make_strand(ioc)) {}

  // Destroyed bottom up. The bot pool goes first (its searches hold
  // matches); then the hub, whose strands and timers belong to the
  // io_context and so must go while it is alive (the hub's state lives on
  // in the handlers that still hold it, destroyed with the io_context); then
  // the io_context and its handlers; last what those handlers refer to
  // (sessions: the shared counts and metrics; matches: the store writer).
  ServerConfig config;
  Metrics metrics;
  std::unique_ptr<Store> store;
  std::unique_ptr<StoreWriter> writer;
  std::unique_ptr<Shared> shared;
  asio::io_context ioc;
  std::unique_ptr<Hub> hub;
  asio::thread_pool bot_pool;
  tcp::acceptor acceptor;
  std::uint16_t port = 0;
  std::vector<std::thread> threads;
  std::mutex stop_mutex;
  bool running = false;

  void do_accept() {
    // Each connection gets its own strand.
    acceptor.async_accept(asio::make_strand(ioc), [this](beast::error_code ec, Socket s) {
      if (ec) {
        if (ec != asio::error::operation_aborted) fail(ec, "accept");
        if (!acceptor.is_open()) return;
      } else {
        // Small frames go out at once: Nagle would hold an ack behind an event.
        beast::error_code ignored;
        s.set_option(tcp::no_delay(true), ignored);
        std::make_shared<HttpSession>(std::move(s), *shared)->run();
      }
      do_accept();
    });
  }
};

Server::Server(ServerConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}

Server::~Server() {
  stop();
}

std::uint16_t Server::port() const {
  return impl_->port;
}

const Metrics& Server::metrics() const {
  return impl_->metrics;
}

inarow::expected<void, std::string> Server::start() {
  Impl& s = *impl_;
  auto store =
      open_sqlite_store(s.config.store, SqliteOptions{.full_sync = s.config.store_full_sync,
                                                      .busy_timeout = s.config.store_busy_timeout});
  if (!store) return inarow::unexpected(store.error());
  s.store = std::move(*store);
  s.writer =
      std::make_unique<StoreWriter>(*s.store, [&m = s.metrics](double sec, std::size_t n, bool ok) {
        m.store_commit.observe(sec);
        m.store_ops.fetch_add(n, std::memory_order_relaxed);
        if (!ok) m.store_failures.fetch_add(1, std::memory_order_relaxed);
      });
  tune_bot_threads(s.bot_pool, std::max(1, s.config.bot_threads), s.config.bot_nice);
  s.hub = std::make_unique<Hub>(s.ioc, s.bot_pool, s.config, *s.store, *s.writer, s.metrics);
  s.shared = std::make_unique<Shared>(s.config, s.metrics, *s.hub);
  s.hub->restore();

  beast::error_code ec;
  const auto address = asio::ip::make_address(s.config.address, ec);
  if (ec) return inarow::unexpected("bad address " + s.config.address + ": " + ec.message());
  const tcp::endpoint endpoint(address, s.config.port);
  s.acceptor.open(endpoint.protocol(), ec);
  if (!ec) s.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(endpoint, ec);
  if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return inarow::unexpected(
        fmt::format("cannot listen on {}:{}: {}", s.config.address, s.config.port, ec.message()));
  }
  s.port = s.acceptor.local_endpoint().port();
  spdlog::info("listening on {}:{} threads={} bot_threads={} bot_nice={} store={}",
               s.config.address, s.port, s.config.threads, s.config.bot_threads, s.config.bot_nice,
               s.config.store);
  s.do_accept();
  s.running = true;
  for (int i = 0; i < std::max(1, s.config.threads); ++i) {
    s.threads.emplace_back([&s] { s.ioc.run(); });
  }
  return {};
}

void Server::stop() {
  Impl& s = *impl_;
  std::lock_guard lock(s.stop_mutex);
  if (!s.running) {
    if (s.writer) s.writer->stop();
    return;
  }
  s.running = false;
  spdlog::info("stopping: closing the listener, saying goodbye");
  // On the acceptor's strand, where its accept handler runs and re-arms:
  // closing it from another thread would race that.
  asio::post(s.acceptor.get_executor(), [&s] {
    beast::error_code ignored;
    s.acceptor.close(ignored);
  });
  s.hub->shutdown();
  // Connections that never said hello get no goodbye, only the close.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  s.shared->close_all();
  // Let the goodbyes go out and the clients close, for a few seconds at most.
  const auto deadline = SteadyClock::now() + std::chrono::seconds(3);
  while (s.shared->sessions.load() > 0 && SteadyClock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  s.ioc.stop();
  for (auto& t : s.threads)
    t.join();
  s.threads.clear();
  s.bot_pool.join();
  s.writer->flush();
  s.writer->stop();
  spdlog::info("stopped: store flushed");
}

}  // namespace inarow::server
