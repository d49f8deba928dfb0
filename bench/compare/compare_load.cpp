// compare-load: the C++ driver of bench/compare. Plays the comparison's
// scenario against inarow-server (binary protobuf or JSON text frames) or
// against compare-echo-server (the limit), and prints one RESULT line.
//
// The scenario (the Node driver peer/drive.js plays the same against
// boardgame.io): N concurrent matches of tic-tac-toe, two connections each;
// each player moves a random legal cell as soon as it is its turn; a finished
// game is restarted at once by the same two players. A move's round trip is
// from sending it to the server's answer that it was accepted (inarow: the
// ack; echo: the second frame back). Optionally a share of the matches are a
// person against a server bot (one connection each); their round trips are
// kept apart so that the people-only p99 can be compared with and without
// bots thinking.
//
// inarow: the first player creates a private unrated game and hands the code
// to the second, who joins it (no matchmaker delay). Echo: the pair is named
// in the first frame and games restart locally (no frames), as no game logic
// runs there.
#include <google/protobuf/util/json_util.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
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
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/process_stats.h"
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
  std::string target = "inarow";  // inarow | echo
  bool json = false;
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  int source_addresses = 1;  // bind connection i to 127.0.0.(2 + i % this) when > 1
  int server_pid = 0;
  int matches = 100;
  double bot_fraction = 0.0;  // share of matches against a bot
  std::string level = "medium";
  std::string variant = "tictactoe";
  int seconds = 10;
  int warmup_seconds = 2;
  int threads = 1;
  int think_ms = 0;  // a pause before each move (0: move at once, the scenario)
  int connect_timeout_seconds = 120;
};

struct Stats {
  std::atomic<int> connected{0};
  std::atomic<int> failed{0};
  std::atomic<int> dropped{0};  // connections lost while playing
  std::atomic<bool> measuring{false};
  std::atomic<bool> stopping{false};
  std::atomic<std::uint64_t> moves{0};
  std::atomic<std::uint64_t> games{0};
  std::atomic<std::uint64_t> errors{0};
  std::mutex mutex;
  std::vector<double> people_us;  // round trips in people-vs-people matches
  std::vector<double> bot_us;     // the person's round trips in matches against a bot
};

using inarow::bench::percentile;
using inarow::bench::ProcSample;
constexpr auto sample = inarow::bench::sample_process;

class Player : public inarow::bench::WsPlayer<Player> {
 public:
  Player(asio::io_context& ioc, const Options& opt, Stats& stats, int match, int seat, bool vs_bot,
         std::uint64_t seed)
      : WsPlayer(ioc, seed, opt.json),
        opt_(opt),
        stats_(stats),
        match_(match),
        seat_(seat),
        vs_bot_(vs_bot),
        variant_(*inarow::Variant::parse(opt.variant)),
        game_(variant_),
        mine_(seat == 0 ? inarow::Side::first : inarow::Side::second) {}

  void set_partner(std::shared_ptr<Player> p) { partner_ = p; }

  void start(const tcp::endpoint& endpoint, int index) {
    connect(endpoint, opt_.host,
            opt_.source_addresses > 1 ? std::optional<int>(index % opt_.source_addresses)
                                      : std::nullopt);
  }

  // Once everyone is connected: the first seat of each match starts it.
  void play() {
    asio::post(ws_.get_executor(), [self = shared_from_this()] {
      if (self->seat_ == 0) self->new_game();
    });
  }

  void stop() { close(); }

  // ------------------------------------------------------------ WsPlayer
  void on_failure(const char* what, beast::error_code ec) {
    if (stats_.stopping) return;
    if (greeted_) {
      stats_.dropped.fetch_add(1);
    } else {
      stats_.failed.fetch_add(1);
    }
    static std::atomic<int> shown{0};
    if (shown.fetch_add(1) < 5) std::cerr << what << ": " << ec.message() << "\n";
  }

  void on_open() {
    if (echo()) {
      send_frame("pair:" + std::to_string(match_));
    } else {
      v1::ClientMessage m;
      m.mutable_hello()->set_protocol_version(1);
      m.mutable_hello()->set_name("compare");
      send(m);
    }
  }

  void on_frame(std::string_view frame) {
    if (echo()) return on_echo(frame);
    v1::ServerMessage m;
    if (parse(frame, m)) {
      handle(m);
    } else {
      stats_.errors.fetch_add(1);
    }
  }

 private:
  bool echo() const { return opt_.target == "echo"; }

  void greeted() {
    greeted_ = true;
    stats_.connected.fetch_add(1);
  }

  void moved(bool counted) {
    const auto rtt = Clock::now() - move_sent_;
    if (!counted || !stats_.measuring || stats_.stopping) return;
    stats_.moves.fetch_add(1, std::memory_order_relaxed);
    const double us = std::chrono::duration<double, std::micro>(rtt).count();
    std::lock_guard lock(stats_.mutex);
    (vs_bot_ ? stats_.bot_us : stats_.people_us).push_back(us);
  }

  // ------------------------------------------------------------ inarow
  void handle(const v1::ServerMessage& m) {
    if (m.has_welcome()) {
      player_id_ = m.welcome().player_id();
      greeted();
    } else if (m.has_error()) {
      stats_.errors.fetch_add(1);
      static std::atomic<int> shown{0};
      if (shown.fetch_add(1) < 5) std::cerr << "error: " << m.error().message() << "\n";
    } else if (m.has_ack()) {
      if (m.request_id() == move_request_) {
        move_request_ = 0;
        moved(true);
      } else if (m.request_id() == create_request_) {
        create_request_ = 0;
        if (auto partner = partner_.lock()) partner->join(m.ack().code());
      }
    } else if (m.has_event()) {
      on_event(m.event());
    }
  }

  void join(std::string code) {
    asio::post(ws_.get_executor(), [self = shared_from_this(), code = std::move(code)] {
      if (self->stats_.stopping) return;
      v1::ClientMessage m;
      m.mutable_join_private()->set_code(code);
      self->send(m);
    });
  }

  void on_event(const v1::MatchEvent& e) {
    // Matches are independent actors: the last events of a match can reach a
    // connection after the next match has started (the partner saw the end
    // first and began again). Only the current match's events count.
    if (!e.has_started() && e.match_id() != match_id_) return;
    if (e.has_started()) {
      match_id_ = e.started().state().match_id();
      game_ = inarow::Game(variant_);
      mine_ = e.started().state().first().id() == player_id_ ? inarow::Side::first
                                                             : inarow::Side::second;
    } else if (e.has_move_made()) {
      (void)game_.play(e.move_made().move());
    } else if (e.has_ended()) {
      match_id_.clear();
      if (seat_ == 0) {
        if (stats_.measuring && !stats_.stopping) stats_.games.fetch_add(1);
        new_game();
      }
      return;
    } else {
      return;
    }
    if (!game_.over() && game_.to_move() == mine_) schedule_move();
  }

  void new_game() {
    if (stats_.stopping) return;
    if (echo()) {
      game_ = inarow::Game(variant_);
      mine_ = seat_ == 0 ? inarow::Side::first : inarow::Side::second;
      if (mine_ == inarow::Side::first) schedule_move();
      return;
    }
    v1::ClientMessage m;
    if (vs_bot_) {
      auto* p = m.mutable_play_bot();
      p->set_variant(opt_.variant);
      p->set_level(opt_.level);
      p->set_side(rng_() % 2 ? v1::SIDE_FIRST : v1::SIDE_SECOND);
      send(m);
    } else {
      auto* p = m.mutable_create_private();
      p->set_variant(opt_.variant);
      p->set_side(v1::SIDE_FIRST);
      create_request_ = send(m);
    }
  }

  void schedule_move() {
    after_think(opt_.think_ms, [this] { make_move(); });
  }

  void make_move() {
    if (stats_.stopping) return;
    auto m = random_move(game_, echo() ? "m" + std::to_string(match_) : match_id_);
    if (!m) return;
    move_sent_ = Clock::now();
    echoes_ = 0;
    move_request_ = send(*m);
  }

  // ------------------------------------------------------------ echo
  // Our move comes back twice (event, then ack); the opponent's once.
  void on_echo(std::string_view frame) {
    if (!greeted_) return greeted();
    if (move_request_ != 0) {
      // Frames from the partner cannot arrive while we wait: it is our turn.
      if (++echoes_ < 2) return;
      move_request_ = 0;
      moved(true);
    }
    v1::ClientMessage m;
    if (!parse(frame, m) || !game_.play(m.move().move())) {
      stats_.errors.fetch_add(1);
      return;
    }
    if (game_.over()) {
      if (seat_ == 0 && stats_.measuring && !stats_.stopping) stats_.games.fetch_add(1);
      return new_game();
    }
    if (game_.to_move() == mine_) schedule_move();
  }

  const Options& opt_;
  Stats& stats_;
  int match_;
  int seat_;
  bool vs_bot_;
  bool greeted_ = false;
  std::weak_ptr<Player> partner_;
  std::string player_id_;
  inarow::Variant variant_;
  inarow::Game game_;
  inarow::Side mine_;
  std::string match_id_;
  std::uint64_t move_request_ = 0;
  std::uint64_t create_request_ = 0;
  int echoes_ = 0;
  Clock::time_point move_sent_;
};

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"compare-load: the bench/compare scenario against inarow-server or the echo limit"};
  app.option_defaults()->always_capture_default();
  app.add_option("--target", opt.target, "inarow or echo")
      ->check(CLI::IsMember({"inarow", "echo"}));
  app.add_flag("--json", opt.json, "Text frames with protobuf's JSON mapping");
  app.add_option("--host", opt.host, "Server address");
  app.add_option("--port", opt.port, "Server port")->required();
  app.add_option("--source-addresses", opt.source_addresses,
                 "Spread connections over 127.0.0.2.. (more ephemeral ports)");
  app.add_option("--server-pid", opt.server_pid, "Server process, for CPU time and memory");
  app.add_option("--matches", opt.matches, "Concurrent matches");
  app.add_option("--bot-fraction", opt.bot_fraction, "Share of matches against a bot (inarow)");
  app.add_option("--level", opt.level, "Bot level");
  app.add_option("--variant", opt.variant, "Variant");
  app.add_option("--seconds", opt.seconds, "Measured time");
  app.add_option("--warmup-seconds", opt.warmup_seconds, "Play before measuring");
  app.add_option("--threads", opt.threads, "Driver threads");
  app.add_option("--think-ms", opt.think_ms, "Pause before each move (paced runs)");
  CLI11_PARSE(app, argc, argv);
  signal(SIGPIPE, SIG_IGN);

  asio::io_context ioc;
  Stats stats;
  const tcp::endpoint endpoint(asio::ip::make_address(opt.host), opt.port);
  const int bot_matches =
      opt.target == "inarow" ? static_cast<int>(opt.matches * opt.bot_fraction + 0.5) : 0;
  std::vector<std::shared_ptr<Player>> players;
  for (int m = 0; m < opt.matches; ++m) {
    const bool vs_bot = m < bot_matches;
    auto a = std::make_shared<Player>(ioc, opt, stats, m, 0, vs_bot, 2 * m + 1);
    players.push_back(a);
    if (!vs_bot) {
      auto b = std::make_shared<Player>(ioc, opt, stats, m, 1, false, 2 * m + 2);
      a->set_partner(b);
      b->set_partner(a);
      players.push_back(b);
    }
  }
  const int connections = static_cast<int>(players.size());

  const ProcSample idle = sample(opt.server_pid);
  auto guard = asio::make_work_guard(ioc);
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, opt.threads); ++t)
    threads.emplace_back([&] { ioc.run(); });

  // Connect in batches so the listen backlog is not overrun.
  const auto connect_start = Clock::now();
  const auto connect_deadline = connect_start + std::chrono::seconds(opt.connect_timeout_seconds);
  for (int i = 0; i < connections; ++i) {
    players[i]->start(endpoint, i);
    if (i % 200 == 199) {
      while (stats.connected + stats.failed < i - 100 && Clock::now() < connect_deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  while (stats.connected + stats.failed < connections && Clock::now() < connect_deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const double connect_s = std::chrono::duration<double>(Clock::now() - connect_start).count();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const ProcSample connected = sample(opt.server_pid);

  for (auto& p : players)
    p->play();
  std::this_thread::sleep_for(std::chrono::seconds(opt.warmup_seconds));
  const ProcSample before = sample(opt.server_pid);
  stats.measuring = true;
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(opt.seconds));
  stats.measuring = false;
  const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  const ProcSample after = sample(opt.server_pid);
  stats.stopping = true;
  for (auto& p : players)
    p->stop();
  guard.reset();
  ioc.stop();
  for (auto& t : threads)
    t.join();

  std::vector<double> all;
  {
    std::lock_guard lock(stats.mutex);
    all = stats.people_us;
    all.insert(all.end(), stats.bot_us.begin(), stats.bot_us.end());
  }
  const auto moves = static_cast<double>(stats.moves.load());
  const double cpu = after.cpu_s - before.cpu_s;
  const int ok = stats.connected.load();
  // One line of key=value for run.sh; latencies in ms, memory in KiB.
  std::printf(
      "RESULT target=%s json=%d matches=%d connections=%d connected=%d failed=%d dropped=%d "
      "connect_s=%.2f seconds=%.2f moves=%.0f moves_per_s=%.0f games=%llu errors=%llu "
      "p50_ms=%.3f p99_ms=%.3f p999_ms=%.3f people_p99_ms=%.3f bot_p99_ms=%.3f "
      "cpu_s=%.2f cpu_s_per_1000=%.4f idle_kib=%ld connected_kib=%ld kib_per_conn=%.1f "
      "hwm_kib=%ld think_ms=%d\n",
      opt.target.c_str(), opt.json ? 1 : 0, opt.matches, connections, ok, stats.failed.load(),
      stats.dropped.load(), connect_s, elapsed, moves, moves / elapsed,
      static_cast<unsigned long long>(stats.games.load()),
      static_cast<unsigned long long>(stats.errors.load()), percentile(all, 50) / 1000,
      percentile(all, 99) / 1000, percentile(all, 99.9) / 1000,
      percentile(stats.people_us, 99) / 1000, percentile(stats.bot_us, 99) / 1000, cpu,
      moves > 0 ? cpu * 1000 / moves : 0.0, idle.rss_kib, connected.rss_kib,
      ok > 0 ? static_cast<double>(connected.rss_kib - idle.rss_kib) / ok : 0.0, after.hwm_kib,
      opt.think_ms);
  return ok == connections ? 0 : 1;
}
