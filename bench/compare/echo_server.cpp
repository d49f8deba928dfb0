// compare-echo-server: the limit in bench/compare. A bare Beast WebSocket
// server with no game logic that answers a move with the same number of
// frames inarow does: the frame back to its sender twice (the "event" and the
// "ack") and once to the sender's partner (the opponent's "event").
//
// The first frame on a connection names its pair ("pair:<key>"); the server
// answers it with one frame ("welcome") and links the two connections that
// named the same key. Everything after that is relayed as above.
//
//   compare-echo-server --port 0 --threads 2   # logs "listening on 127.0.0.1:NNNNN"
#include <CLI/CLI.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

class Session;

// A strand per connection, named by type, as in inarow's sessions.
using Socket = tcp::socket::rebind_executor<asio::strand<asio::io_context::executor_type>>::other;

// Pairs waiting for their second connection, by key.
struct Pairs {
  std::mutex mutex;
  std::unordered_map<std::string, std::weak_ptr<Session>> waiting;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Socket socket, Pairs& pairs) : ws_(std::move(socket)), pairs_(pairs) {}

  void start() {
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws_.async_accept(beast::bind_front_handler(&Session::on_accept, shared_from_this()));
  }

  // Queue a frame; may be called from any thread: hops onto our strand.
  void deliver(std::shared_ptr<const std::string> frame, bool text) {
    asio::post(ws_.get_executor(), [self = shared_from_this(), frame = std::move(frame), text] {
      self->enqueue(std::move(frame), text);
    });
  }

 private:
  void on_accept(beast::error_code ec) {
    if (ec) return;
    do_read();
  }

  void do_read() {
    ws_.async_read(buffer_, beast::bind_front_handler(&Session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    if (ec) return;
    auto frame = std::make_shared<const std::string>(beast::buffers_to_string(buffer_.cdata()));
    buffer_.consume(buffer_.size());
    const bool text = ws_.got_text();
    if (!paired_) {
      paired_ = true;
      link(*frame);
      enqueue(std::make_shared<const std::string>("welcome"), text);
    } else {
      enqueue(frame, text);  // the mover's event
      if (auto partner = partner_.lock()) partner->deliver(frame, text);
      enqueue(frame, text);  // the mover's ack
    }
    do_read();
  }

  void link(const std::string& key) {
    std::shared_ptr<Session> other;
    {
      std::lock_guard lock(pairs_.mutex);
      auto it = pairs_.waiting.find(key);
      if (it == pairs_.waiting.end()) {
        pairs_.waiting.emplace(key, weak_from_this());
        return;
      }
      other = it->second.lock();
      pairs_.waiting.erase(it);
    }
    if (!other) return;
    partner_ = other;
    asio::post(other->ws_.get_executor(),
               [other, self = weak_from_this()] { other->partner_ = self; });
  }

  void enqueue(std::shared_ptr<const std::string> frame, bool text) {
    queue_.emplace_back(std::move(frame), text);
    if (queue_.size() == 1) do_write();
  }

  void do_write() {
    ws_.text(queue_.front().second);
    ws_.async_write(asio::buffer(*queue_.front().first),
                    beast::bind_front_handler(&Session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    if (ec) return;
    queue_.pop_front();
    if (!queue_.empty()) do_write();
  }

  // The same stream as inarow-server's sessions: the bare socket (the
  // websocket keeps its own timers), no permessage-deflate.
  websocket::stream<Socket, false> ws_;
  beast::flat_buffer buffer_;
  Pairs& pairs_;
  bool paired_ = false;
  std::weak_ptr<Session> partner_;
  std::deque<std::pair<std::shared_ptr<const std::string>, bool>> queue_;
};

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(asio::io_context& ioc, tcp::endpoint endpoint, Pairs& pairs)
      : ioc_(ioc), acceptor_(ioc), pairs_(pairs) {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(asio::socket_base::max_listen_connections);
  }

  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

  void do_accept() {
    acceptor_.async_accept(asio::make_strand(ioc_),
                           beast::bind_front_handler(&Listener::on_accept, shared_from_this()));
  }

 private:
  void on_accept(beast::error_code ec, Socket socket) {
    if (!ec) {
      socket.set_option(tcp::no_delay(true));
      std::make_shared<Session>(std::move(socket), pairs_)->start();
    }
    do_accept();
  }

  asio::io_context& ioc_;
  tcp::acceptor acceptor_;
  Pairs& pairs_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;
  int threads = 2;
  CLI::App app{"compare-echo-server: a bare Beast WebSocket relay, the limit for bench/compare"};
  app.option_defaults()->always_capture_default();
  app.add_option("--address", address, "Address to listen on");
  app.add_option("--port", port, "Port; 0 takes an ephemeral port");
  app.add_option("--threads", threads, "I/O threads")->check(CLI::Range(1, 256));
  CLI11_PARSE(app, argc, argv);

  asio::io_context ioc(threads);
  Pairs pairs;
  auto listener =
      std::make_shared<Listener>(ioc, tcp::endpoint(asio::ip::make_address(address), port), pairs);
  listener->do_accept();
  std::printf("listening on %s:%u\n", address.c_str(), listener->port());
  std::fflush(stdout);

  asio::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&](beast::error_code, int) { ioc.stop(); });
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i)
    pool.emplace_back([&] { ioc.run(); });
  ioc.run();
  for (auto& t : pool)
    t.join();
  return 0;
}
