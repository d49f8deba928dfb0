// inarow-load: a load generator for inarow-server. Opens N WebSocket
// connections, says hello on each, then plays matches on all of them at once
// — people-vs-people pairs through the matchmaker and people-vs-bot — for a
// fixed time, and reports moves per second, move round-trip latency
// percentiles (move sent -> its ack) and the server's memory per connection.
//
//   inarow-load --spawn build/release/server/inarow-server --connections 1000 --seconds 20
//   inarow-load --port 8080 --server-pid $(pidof inarow-server) --connections 1000
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/process_stats.h"
#include "common/spawn_server.h"
#include "common/ws_player.h"
#include "inarow/engine/game.h"
#include "inarow/engine/notation.h"
#include "inarow/v1/inarow.pb.h"

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace v1 = inarow::v1;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;
  std::string spawn;  // a server binary to start on an ephemeral port
  int server_pid = 0;
  int connections = 1000;
  double bot_fraction = 0.5;  // the rest play each other in pairs
  std::string variant = "tictactoe";
  std::string level = "beginner";
  int seconds = 20;
  int threads = 1;
  int server_threads = 1;
  int server_bot_threads = 1;
  int think_ms = 0;
};

struct Stats {
  std::atomic<int> connected{0};
  std::atomic<int> failed{0};
  std::atomic<bool> playing{false};
  std::atomic<bool> stopping{false};
  std::atomic<std::uint64_t> moves{0};  // our moves acked while measuring
  std::atomic<std::uint64_t> matches{0};
  std::atomic<std::uint64_t> errors{0};
  std::mutex mutex;
  std::vector<double> rtt_us;
};

using inarow::bench::percentile;

long rss_kib(int pid) {
  return inarow::bench::sample_process(pid).rss_kib;
}

class Player : public inarow::bench::WsPlayer<Player> {
 public:
  Player(asio::io_context& ioc, const Options& opt, Stats& stats, bool bot_games,
         std::uint64_t seed)
      : WsPlayer(ioc, seed, /*json=*/false),
        opt_(opt),
        stats_(stats),
        bot_games_(bot_games),
        variant_(*inarow::Variant::parse(opt.variant)),
        game_(variant_) {}

  void start(const tcp::endpoint& endpoint) { connect(endpoint, opt_.host, std::nullopt); }

  // Called once everyone is connected: begin the first match.
  void play() {
    asio::post(ws_.get_executor(), [self = shared_from_this()] { self->new_match(); });
  }

  void stop() { close(); }

  // ------------------------------------------------------------ WsPlayer
  void on_open() {
    v1::ClientMessage m;
    m.mutable_hello()->set_protocol_version(1);
    m.mutable_hello()->set_name("load");
    send(m);
  }

  void on_failure(const char* what, beast::error_code ec) {
    if (stats_.stopping) return;
    if (stats_.failed.fetch_add(1) < 5) std::cerr << what << ": " << ec.message() << "\n";
  }

  void on_frame(std::string_view frame) {
    v1::ServerMessage m;
    if (parse(frame, m)) handle(m);
  }

 private:
  void handle(const v1::ServerMessage& m) {
    if (m.has_welcome()) {
      player_id_ = m.welcome().player_id();
      stats_.connected.fetch_add(1);
    } else if (m.has_error()) {
      stats_.errors.fetch_add(1);
    } else if (m.has_ack() && m.request_id() == move_request_) {
      const auto rtt = Clock::now() - move_sent_;
      move_request_ = 0;
      if (stats_.playing && !stats_.stopping) {
        stats_.moves.fetch_add(1, std::memory_order_relaxed);
        std::lock_guard lock(stats_.mutex);
        stats_.rtt_us.push_back(std::chrono::duration<double, std::micro>(rtt).count());
      }
    } else if (m.has_event()) {
      on_event(m.event());
    }
  }

  void on_event(const v1::MatchEvent& e) {
    if (e.has_started()) {
      match_id_ = e.match_id();
      game_ = inarow::Game(variant_);
      const auto& st = e.started().state();
      mine_ = st.first().id() == player_id_ ? inarow::Side::first : inarow::Side::second;
    } else if (e.match_id() != match_id_) {
      return;  // the end of an earlier match, overtaken by the next one
    } else if (e.has_move_made()) {
      (void)game_.play(e.move_made().move());
    } else if (e.has_ended()) {
      if (stats_.playing && !stats_.stopping) stats_.matches.fetch_add(1);
      match_id_.clear();
      new_match();
      return;
    } else {
      return;
    }
    if (!game_.over() && game_.to_move() == mine_) {
      after_think(opt_.think_ms, [this] { make_move(); });
    }
  }

  void make_move() {
    if (match_id_.empty()) return;
    auto m = random_move(game_, match_id_);
    if (!m) return;
    move_sent_ = Clock::now();
    move_request_ = send(*m);
  }

  void new_match() {
    if (stats_.stopping) return;
    v1::ClientMessage m;
    if (bot_games_) {
      auto* p = m.mutable_play_bot();
      p->set_variant(opt_.variant);
      p->set_level(opt_.level);
      p->set_side(rng_() % 2 ? v1::SIDE_FIRST : v1::SIDE_SECOND);
    } else {
      m.mutable_seek()->set_variant(opt_.variant);
    }
    send(m);
  }

  std::string player_id_;
  const Options& opt_;
  Stats& stats_;
  bool bot_games_;
  inarow::Variant variant_;
  inarow::Game game_;
  inarow::Side mine_ = inarow::Side::first;
  std::string match_id_;
  std::uint64_t move_request_ = 0;
  Clock::time_point move_sent_;
};

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"inarow-load: play many concurrent matches against inarow-server"};
  app.option_defaults()->always_capture_default();
  app.add_option("--host", opt.host, "Server address");
  app.add_option("--port", opt.port, "Server port");
  app.add_option("--spawn", opt.spawn, "Start this inarow-server binary on an ephemeral port");
  app.add_option("--server-pid", opt.server_pid, "Server process, for its memory (RSS)");
  app.add_option("--connections,-n", opt.connections, "WebSocket connections");
  app.add_option("--bot-fraction", opt.bot_fraction,
                 "Share of connections playing bots; the rest play each other");
  app.add_option("--variant", opt.variant, "Variant to play");
  app.add_option("--level", opt.level, "Bot level");
  app.add_option("--seconds", opt.seconds, "How long to play");
  app.add_option("--threads", opt.threads, "Load generator threads");
  app.add_option("--server-threads", opt.server_threads, "--threads for a spawned server");
  app.add_option("--server-bot-threads", opt.server_bot_threads,
                 "--bot-threads for a spawned server");
  app.add_option("--think-ms", opt.think_ms, "Mean pause before each of our moves (uniform +-50%)");
  CLI11_PARSE(app, argc, argv);

  if (!opt.spawn.empty()) {
    // The store is a file per run: the durable path is what is measured.
    auto [pid, port] = inarow::bench::spawn_server(
        opt.spawn,
        {"--threads", std::to_string(opt.server_threads), "--bot-threads",
         std::to_string(opt.server_bot_threads), "--store",
         "/tmp/inarow-load-" + std::to_string(getpid()) + ".db", "--rate", "1000", "--rate-burst",
         "1000"},
        15);
    if (port == 0) {
      std::cerr << "could not start " << opt.spawn << "\n";
      return 1;
    }
    opt.server_pid = pid;
    opt.port = port;
  }

  asio::io_context ioc;
  Stats stats;
  const tcp::endpoint endpoint(asio::ip::make_address(opt.host), opt.port);
  const long rss_before = opt.server_pid ? rss_kib(opt.server_pid) : -1;

  std::vector<std::shared_ptr<Player>> players;
  const int bot_players = static_cast<int>(opt.connections * opt.bot_fraction);
  for (int i = 0; i < opt.connections; ++i) {
    players.push_back(std::make_shared<Player>(ioc, opt, stats, i < bot_players,
                                               static_cast<std::uint64_t>(i) + 1));
  }
  auto guard = asio::make_work_guard(ioc);
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, opt.threads); ++t)
    threads.emplace_back([&] { ioc.run(); });

  // Connect in batches so the listen backlog is not overrun.
  const auto connect_start = Clock::now();
  for (int i = 0; i < opt.connections; ++i) {
    players[i]->start(endpoint);
    if (i % 200 == 199) {
      while (stats.connected + stats.failed < i - 100) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
  }
  while (stats.connected + stats.failed < opt.connections &&
         Clock::now() - connect_start < std::chrono::seconds(60)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const double connect_s = std::chrono::duration<double>(Clock::now() - connect_start).count();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const long rss_connected = opt.server_pid ? rss_kib(opt.server_pid) : -1;

  for (auto& p : players)
    p->play();
  // Let matches get going before measuring.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  stats.playing = true;
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(opt.seconds));
  const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  const long rss_playing = opt.server_pid ? rss_kib(opt.server_pid) : -1;
  stats.stopping = true;
  for (auto& p : players)
    p->stop();
  guard.reset();
  ioc.stop();
  for (auto& t : threads)
    t.join();

  std::vector<double> rtt;
  {
    std::lock_guard lock(stats.mutex);
    rtt = stats.rtt_us;
  }
  const std::uint64_t moves = stats.moves;
  std::printf("connections      %d requested, %d connected, %d failed (%.2f s to connect)\n",
              opt.connections, stats.connected.load(), stats.failed.load(), connect_s);
  std::printf("mix              %d playing %s bots, %d in person-vs-person pairs, %s\n",
              bot_players, opt.level.c_str(), opt.connections - bot_players, opt.variant.c_str());
  std::printf("matches finished %llu in %.1f s\n",
              static_cast<unsigned long long>(stats.matches.load()), elapsed);
  std::printf("moves            %llu client moves acked, %.0f moves/s\n",
              static_cast<unsigned long long>(moves), static_cast<double>(moves) / elapsed);
  std::printf("move round trip  p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms (%zu samples)\n",
              percentile(rtt, 50.0) / 1000, percentile(rtt, 99.0) / 1000,
              percentile(rtt, 99.9) / 1000, rtt.size());
  std::printf("errors           %llu\n", static_cast<unsigned long long>(stats.errors.load()));
  if (opt.server_pid) {
    std::printf(
        "server memory    %ld KiB idle, %ld KiB with everyone connected (%.1f KiB per "
        "connection), %ld KiB while playing (%.1f KiB per connection)\n",
        rss_before, rss_connected,
        static_cast<double>(rss_connected - rss_before) / std::max(1, stats.connected.load()),
        rss_playing,
        static_cast<double>(rss_playing - rss_before) / std::max(1, stats.connected.load()));
  }
  if (!opt.spawn.empty()) {
    kill(opt.server_pid, SIGTERM);
    int status = 0;
    waitpid(opt.server_pid, &status, 0);
  }
  return stats.connected.load() == opt.connections ? 0 : 1;
}
