// inarow-retained: what the server keeps in memory for each thing that is
// over. A soak's RSS creeps if something finished is kept; this tells which
// thing it is. Starts inarow-server (a short reconnect grace, so ended
// matches are let go quickly), warms it up, then in turn:
//   games:      one player plays tic-tac-toe games against the beginner bot,
//               one after another;
//   players:    new players say hello and leave;
//   reconnects: one known player says hello with its token and leaves;
// and prints the server's RSS after each block and the bytes kept per item.
//
//   inarow-retained --spawn build/release/server/inarow-server
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "common/process_stats.h"
#include "common/spawn_server.h"
#include "inarow/v1/inarow.pb.h"

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace v1 = inarow::v1;
using tcp = asio::ip::tcp;

// One blocking WebSocket connection speaking protobuf.
class Client {
 public:
  Client(asio::io_context& ioc, const tcp::endpoint& at) : ws_(ioc) {
    beast::get_lowest_layer(ws_).connect(at);
    ws_.handshake("127.0.0.1", "/ws");
    ws_.binary(true);
  }
  ~Client() {
    beast::error_code ec;
    ws_.close(beast::websocket::close_code::normal, ec);
  }

  void send(v1::ClientMessage m) {
    m.set_request_id(++request_id_);
    ws_.write(asio::buffer(m.SerializeAsString()));
  }
  v1::ServerMessage receive() {
    beast::flat_buffer buffer;
    ws_.read(buffer);
    v1::ServerMessage m;
    if (!m.ParseFromArray(buffer.data().data(), static_cast<int>(buffer.size()))) {
      throw std::runtime_error("unreadable frame");
    }
    return m;
  }
  v1::Welcome hello(const std::string& name, const std::string& token) {
    v1::ClientMessage m;
    m.mutable_hello()->set_protocol_version(1);
    m.mutable_hello()->set_name(name);
    m.mutable_hello()->set_token(token);
    send(m);
    for (;;) {
      auto reply = receive();
      if (reply.has_welcome()) return reply.welcome();
      if (reply.has_error()) throw std::runtime_error("hello refused: " + reply.error().message());
    }
  }

 private:
  beast::websocket::stream<tcp::socket> ws_;
  std::uint64_t request_id_ = 0;
};

// A whole game against the beginner bot: we move first, each time into the
// first free cell, until the match ends.
void play_one_game(Client& client) {
  static const char* const kCells[] = {"a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"};
  v1::ClientMessage request;
  auto* bot = request.mutable_play_bot();
  bot->set_variant("tictactoe");
  bot->set_level("beginner");
  bot->set_side(v1::SIDE_FIRST);
  client.send(request);
  std::vector<std::string> taken;
  const auto move = [&](const std::string& match_id) {
    for (const char* cell : kCells) {
      if (std::find(taken.begin(), taken.end(), cell) != taken.end()) continue;
      taken.emplace_back(cell);
      v1::ClientMessage m;
      m.mutable_move()->set_match_id(match_id);
      m.mutable_move()->set_move(cell);
      client.send(m);
      return;
    }
  };
  for (;;) {
    const auto m = client.receive();
    if (m.has_error()) {
      if (m.error().code() == v1::ERROR_MATCH_OVER) continue;  // our move crossed the end
      throw std::runtime_error("error: " + m.error().message());
    }
    if (!m.has_event()) continue;
    const auto& e = m.event();
    if (e.has_ended()) return;
    if (e.has_started()) move(e.match_id());
    if (e.has_move_made()) {
      taken.push_back(e.move_made().move());
      if (e.move_made().side() == v1::SIDE_SECOND) move(e.match_id());
    }
  }
}

long rss_after_settling(int pid, int settle_ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
  return inarow::bench::sample_process(pid).rss_kib;
}

// Runs `blocks` blocks of `per_block` items, printing the RSS after each and
// the bytes kept per item from the first sample to the last.
void measure(const char* what, int pid, int blocks, int per_block, int settle_ms,
             const std::function<void(int)>& one) {
  const long start = rss_after_settling(pid, settle_ms);
  std::printf("%-10s %8s %10s\n", what, "items", "RSS KiB");
  std::printf("%-10s %8d %10ld\n", "", 0, start);
  long last = start;
  long middle = start;  // after half the blocks: caches that fill up early show in the first half
  int done = 0;
  int done_at_middle = 0;
  for (int b = 0; b < blocks; ++b) {
    for (int i = 0; i < per_block; ++i)
      one(done++);
    last = rss_after_settling(pid, settle_ms);
    std::printf("%-10s %8d %10ld\n", "", done, last);
    if (b + 1 == blocks / 2) {
      middle = last;
      done_at_middle = done;
    }
  }
  std::printf(
      "%-10s kept per item: %.0f bytes (%+ld KiB over %d); in the second half %.0f bytes\n\n", what,
      static_cast<double>(last - start) * 1024.0 / done, last - start, done,
      static_cast<double>(last - middle) * 1024.0 / std::max(1, done - done_at_middle));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"inarow-retained: the server's memory kept per finished game, player and reconnect"};
  std::string spawn;
  std::string store;
  int games = 6000, players = 6000, reconnects = 6000, blocks = 6, warmup = 1000;
  int grace_ms = 500;
  app.add_option("--spawn", spawn, "The inarow-server binary to start")->required();
  app.add_option("--store", store, "Store file for the server (default: a fresh temporary one)");
  app.add_option("--games", games, "Games to play");
  app.add_option("--players", players, "New players to greet");
  app.add_option("--reconnects", reconnects, "Reconnects of one known player");
  app.add_option("--blocks", blocks, "RSS samples per kind")->check(CLI::Range(1, 1000));
  app.add_option("--warmup", warmup, "Games and players before measuring");
  app.add_option("--grace-ms", grace_ms, "The server's --reconnect-grace-ms");
  CLI11_PARSE(app, argc, argv);

  std::filesystem::path dir;
  if (store.empty()) {
    dir =
        std::filesystem::temp_directory_path() / ("inarow-retained-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    store = (dir / "inarow.db").string();
  }
  auto [pid, port] = inarow::bench::spawn_server(
      spawn, {"--store", store, "--no-sync", "--reconnect-grace-ms", std::to_string(grace_ms),
              "--rate", "100000", "--rate-burst", "100000"});
  if (port == 0) {
    std::fprintf(stderr, "inarow-retained: the server did not start\n");
    return 1;
  }
  int rc = 0;
  try {
    asio::io_context ioc;
    const tcp::endpoint at(asio::ip::make_address("127.0.0.1"), port);
    Client gamer(ioc, at);
    const auto me = gamer.hello("gamer", "");
    // Every ended match must be let go before a sample counts it.
    const int settle_ms = grace_ms + 1000;
    for (int i = 0; i < warmup; ++i) {
      play_one_game(gamer);
      Client(ioc, at).hello("warm" + std::to_string(i), "");
    }
    measure("games", pid, blocks, games / blocks, settle_ms, [&](int) { play_one_game(gamer); });
    measure("players", pid, blocks, players / blocks, settle_ms,
            [&](int i) { Client(ioc, at).hello("p" + std::to_string(i), ""); });
    measure("reconnects", pid, blocks, reconnects / blocks, settle_ms,
            [&](int) { Client(ioc, at).hello("", me.token()); });
    std::printf("store: %.1f MB\n", static_cast<double>(std::filesystem::file_size(store)) / 1e6);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "inarow-retained: %s\n", e.what());
    rc = 1;
  }
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  if (!dir.empty()) std::filesystem::remove_all(dir);
  return rc;
}
