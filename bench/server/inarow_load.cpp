// inarow-load: a load generator for inarow-server. Opens N WebSocket
// connections, says hello on each, then plays matches on all of them at once
// — people-vs-people pairs and people-vs-bot — for a fixed time, and reports
// moves per second, move round-trip latency percentiles (move sent -> its
// ack), the server's CPU per move and its memory per connection.
//
// Pairs meet through the matchmaker (--pairing seek) or by a private code
// one of them makes and the other joins (--pairing code), which says exactly
// which two players meet. With several nodes (--nodes N with --redis, or
// --port given N times) connections are placed on the nodes in turn; a
// private game is owned by its creator's node, and its joiner sits on the
// next node (--joiner-node next: each of its moves is forwarded to the
// owner) or on the same one (--joiner-node same: nothing is forwarded).
//
//   inarow-load --spawn build/release/server/inarow-server --connections 1000 --seconds 20
//   inarow-load --port 8080 --server-pid $(pidof inarow-server) --connections 1000
//   inarow-load --spawn build/release/server/inarow-server --nodes 3 --redis redis://127.0.0.1:6379
//               --store postgresql://inarow@127.0.0.1:5432/inarow --pairing code -n 2000
//               --bot-fraction 0
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
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
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
  std::vector<std::uint16_t> ports = {8080};
  std::string spawn;  // a server binary to start on an ephemeral port
  int nodes = 1;      // how many to start
  std::string store;  // for spawned servers; empty: a SQLite file per run
  std::string redis;  // for spawned servers; needed for more than one
  std::vector<int> server_pids;
  int connections = 1000;
  double bot_fraction = 0.5;  // the rest play each other in pairs
  std::string pairing = "seek";
  std::string joiner_node = "next";
  std::string variant = "tictactoe";
  std::string level = "beginner";
  int seconds = 20;
  int warmup = 1;
  int threads = 1;
  int server_threads = 1;
  int server_bot_threads = 1;
  int think_ms = 0;
  std::string probe;
};

struct Stats {
  std::atomic<int> connected{0};
  std::atomic<int> failed{0};
  std::atomic<bool> playing{false};
  std::atomic<bool> stopping{false};
  std::atomic<std::uint64_t> moves{0};  // our moves acked while measuring
  std::atomic<std::uint64_t> matches{0};
  std::atomic<std::uint64_t> errors{0};
  std::atomic<std::uint64_t> code_retries{0};
  std::atomic<std::uint64_t> seq_gaps{0};      // an event whose seq does not follow
  std::atomic<std::uint64_t> early_events{0};  // a move or end before its match's start
  std::mutex mutex;
  std::vector<double> rtt_us;            // every move
  std::vector<double> forwarded_rtt_us;  // moves in a match another node owns
  std::atomic<int> last_error_code{0};
};

using inarow::bench::percentile;

long rss_kib(int pid) {
  return inarow::bench::sample_process(pid).rss_kib;
}

class Player : public inarow::bench::WsPlayer<Player> {
 public:
  // Who a player is in a pair that meets by private code.
  enum class Role { bot_games, seeker, creator, joiner };

  Player(asio::io_context& ioc, const Options& opt, Stats& stats, Role role, bool forwarded,
         std::uint64_t seed)
      : WsPlayer(ioc, seed, /*json=*/false),
        opt_(opt),
        stats_(stats),
        role_(role),
        forwarded_(forwarded),
        variant_(*inarow::Variant::parse(opt.variant)),
        game_(variant_) {}

  void start(const tcp::endpoint& endpoint) { connect(endpoint, opt_.host, std::nullopt); }

  // A creator hands its codes to this player.
  void pair_with(const std::shared_ptr<Player>& joiner) { joiner_ = joiner; }

  // Called once everyone is connected: begin the first match.
  void play() {
    asio::post(ws_.get_executor(), [self = shared_from_this()] { self->new_match(); });
  }

  void stop() { close(); }

  // When this player last heard anything about its game (a start, a move,
  // an ack, an end), in steady-clock nanoseconds: a player silent for long
  // at the end is stalled.
  Clock::time_point last_progress() const {
    return Clock::time_point(Clock::duration(last_progress_.load()));
  }
  bool in_match() const { return in_match_.load(); }

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
      progress();
    } else if (m.has_error()) {
      // A code another node made may not be in the directory yet when its
      // maker's ack comes back: try again shortly.
      if (m.request_id() == join_request_ && m.error().code() == v1::ERROR_UNKNOWN_CODE) {
        stats_.code_retries.fetch_add(1);
        after_think(20, [this, code = code_] { join(code); });
        return;
      }
      stats_.errors.fetch_add(1);
      stats_.last_error_code = m.error().code();
      if (stats_.errors.load() <= 5) {
        const auto rid = m.request_id();
        std::cerr << "error " << m.error().code() << " (" << m.error().message() << ") to "
                  << (rid == move_request_     ? "a move"
                      : rid == join_request_   ? "a join"
                      : rid == create_request_ ? "a create"
                                               : "request " + std::to_string(rid))
                  << " of a " << (forwarded_ ? "forwarded" : "local") << " player, " << game_.ply()
                  << " plies in\n";
      }
    } else if (m.has_ack() && m.request_id() == create_request_) {
      create_request_ = 0;
      progress();
      if (auto joiner = joiner_.lock()) {
        asio::post(joiner->ws_.get_executor(),
                   [joiner, code = m.ack().code()] { joiner->join(code); });
      }
    } else if (m.has_ack() && m.request_id() == move_request_) {
      const auto rtt = Clock::now() - move_sent_;
      move_request_ = 0;
      progress();
      if (stats_.playing && !stats_.stopping) {
        stats_.moves.fetch_add(1, std::memory_order_relaxed);
        const double us = std::chrono::duration<double, std::micro>(rtt).count();
        std::lock_guard lock(stats_.mutex);
        stats_.rtt_us.push_back(us);
        if (forwarded_) stats_.forwarded_rtt_us.push_back(us);
      }
    } else if (m.has_event()) {
      on_event(m.event());
    }
  }

  void on_event(const v1::MatchEvent& e) {
    if (e.has_started()) {
      progress();
      if (e.match_id() == match_id_) stats_.seq_gaps.fetch_add(1);  // started again
      last_match_id_ = std::move(match_id_);
      match_id_ = e.match_id();
      in_match_ = true;
      seq_ = e.seq();
      game_ = inarow::Game(variant_);
      const auto& st = e.started().state();
      mine_ = st.first().id() == player_id_ ? inarow::Side::first : inarow::Side::second;
    } else if (e.match_id() != match_id_) {
      // The end of an earlier match may be overtaken by the next one; a
      // move in a match we never heard start may not.
      if ((e.has_move_made() || e.has_ended()) && e.match_id() != last_match_id_) {
        stats_.early_events.fetch_add(1);
      }
      return;
    } else {
      if (e.seq() != 0) {  // every numbered event of a match follows the one before
        if (e.seq() != seq_ + 1) stats_.seq_gaps.fetch_add(1);
        seq_ = std::max(seq_, e.seq());
      }
      if (e.has_move_made()) {
        progress();
        (void)game_.play(e.move_made().move());
      } else if (e.has_ended()) {
        progress();
        if (stats_.playing && !stats_.stopping) stats_.matches.fetch_add(1);
        last_match_id_ = std::move(match_id_);
        match_id_.clear();
        in_match_ = false;
        new_match();
        return;
      } else {
        return;
      }
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
    switch (role_) {
      case Role::bot_games: {
        auto* p = m.mutable_play_bot();
        p->set_variant(opt_.variant);
        p->set_level(opt_.level);
        p->set_side(rng_() % 2 ? v1::SIDE_FIRST : v1::SIDE_SECOND);
        break;
      }
      case Role::seeker:
        m.mutable_seek()->set_variant(opt_.variant);
        break;
      case Role::creator:
        // Rated, as a seek is: the same rows are written at the end.
        m.mutable_create_private()->set_variant(opt_.variant);
        m.mutable_create_private()->set_rated(true);
        m.mutable_create_private()->set_side(rng_() % 2 ? v1::SIDE_FIRST : v1::SIDE_SECOND);
        create_request_ = send(m);
        return;
      case Role::joiner:
        return;  // waits for its creator's next code
    }
    send(m);
  }

  void join(const std::string& code) {
    if (stats_.stopping) return;
    code_ = code;
    v1::ClientMessage m;
    m.mutable_join_private()->set_code(code);
    join_request_ = send(m);
  }

  void progress() { last_progress_ = Clock::now().time_since_epoch().count(); }

  std::string player_id_;
  const Options& opt_;
  Stats& stats_;
  Role role_;
  bool forwarded_;  // our matches are owned by another node than ours
  std::weak_ptr<Player> joiner_;
  inarow::Variant variant_;
  inarow::Game game_;
  inarow::Side mine_ = inarow::Side::first;
  std::string match_id_;
  std::string last_match_id_;
  std::uint64_t seq_ = 0;  // the last event's in match_id_
  std::string code_;
  std::uint64_t move_request_ = 0;
  std::uint64_t create_request_ = 0;
  std::uint64_t join_request_ = 0;
  Clock::time_point move_sent_;
  std::atomic<Clock::rep> last_progress_{Clock::now().time_since_epoch().count()};
  std::atomic<bool> in_match_{false};
};

// The --probe command's figures: one "name number" a line, in its order.
std::vector<std::pair<std::string, double>> run_probe(const std::string& command) {
  std::vector<std::pair<std::string, double>> figures;
  if (command.empty()) return figures;
  FILE* out = popen(command.c_str(), "r");
  if (!out) return figures;
  char line[512];
  while (fgets(line, sizeof line, out)) {
    std::istringstream fields(line);
    std::string name;
    double value = 0;
    if (fields >> name >> value) figures.emplace_back(name, value);
  }
  if (pclose(out) != 0) std::cerr << "probe '" << command << "' failed\n";
  return figures;
}

// Ends spawned servers: SIGTERM to all at once (the nodes of a cluster hand
// their matches to each other while they stop), SIGKILL for any still
// there after `grace`.
void stop_servers(const std::vector<int>& pids, std::chrono::seconds grace) {
  for (int pid : pids)
    kill(pid, SIGTERM);
  const auto deadline = Clock::now() + grace;
  std::vector<int> left = pids;
  while (!left.empty()) {
    std::erase_if(left, [](int pid) { return waitpid(pid, nullptr, WNOHANG) == pid; });
    if (left.empty()) break;
    if (Clock::now() > deadline) {
      for (int pid : left) {
        std::cerr << "server " << pid << " did not stop in " << grace.count() << " s: killed\n";
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"inarow-load: play many concurrent matches against inarow-server"};
  app.option_defaults()->always_capture_default();
  app.add_option("--host", opt.host, "Server address");
  app.add_option("--port", opt.ports, "Server port; one per node of a cluster");
  app.add_option("--spawn", opt.spawn, "Start this inarow-server binary on an ephemeral port");
  app.add_option("--nodes", opt.nodes, "How many servers --spawn starts (a cluster: --redis)")
      ->check(CLI::Range(1, 64));
  app.add_option("--store", opt.store,
                 "--store for spawned servers (default: a new SQLite file in /tmp)");
  app.add_option("--redis", opt.redis, "--redis for spawned servers");
  app.add_option("--server-pid", opt.server_pids, "Server processes, for their CPU and memory");
  app.add_option("--connections,-n", opt.connections, "WebSocket connections");
  app.add_option("--bot-fraction", opt.bot_fraction,
                 "Share of connections playing bots; the rest play each other");
  app.add_option("--pairing", opt.pairing,
                 "How two people meet: seek (the matchmaker) or code (a private game)")
      ->check(CLI::IsMember({"seek", "code"}));
  app.add_option("--joiner-node", opt.joiner_node,
                 "With --pairing code: the joiner's node, the creator's next one or the same")
      ->check(CLI::IsMember({"next", "same"}));
  app.add_option("--variant", opt.variant, "Variant to play");
  app.add_option("--level", opt.level, "Bot level");
  app.add_option("--seconds", opt.seconds, "How long to measure");
  app.add_option("--warmup", opt.warmup, "Seconds of play before measuring");
  app.add_option("--threads", opt.threads, "Load generator threads");
  app.add_option("--server-threads", opt.server_threads, "--threads for a spawned server");
  app.add_option("--server-bot-threads", opt.server_bot_threads,
                 "--bot-threads for a spawned server");
  app.add_option("--think-ms", opt.think_ms, "Mean pause before each of our moves (uniform +-50%)");
  app.add_option("--probe", opt.probe,
                 "Shell command run when measuring starts and ends; its \"name number\" lines "
                 "are printed as differences (INAROW_LOAD_PORTS holds the servers' ports)");
  CLI11_PARSE(app, argc, argv);

  if (!opt.spawn.empty()) {
    if (opt.nodes > 1 && opt.redis.empty()) {
      std::cerr << "--nodes " << opt.nodes << " needs --redis\n";
      return 2;
    }
    // The default store is a file per run: the durable path is what is measured.
    const std::string store =
        opt.store.empty() ? "/tmp/inarow-load-" + std::to_string(getpid()) + ".db" : opt.store;
    opt.ports.clear();
    opt.server_pids.clear();
    for (int n = 0; n < opt.nodes; ++n) {
      std::vector<std::string> flags = {"--threads",     std::to_string(opt.server_threads),
                                        "--bot-threads", std::to_string(opt.server_bot_threads),
                                        "--store",       store,
                                        "--rate",        "1000",
                                        "--rate-burst",  "1000"};
      if (!opt.redis.empty()) {
        flags.insert(flags.end(),
                     {"--redis", opt.redis, "--node-id", "load" + std::to_string(n + 1)});
      }
      auto [pid, port] = inarow::bench::spawn_server(opt.spawn, flags, 30);
      if (pid > 0) opt.server_pids.push_back(pid);
      if (port == 0) {
        std::cerr << "could not start " << opt.spawn << "\n";
        stop_servers(opt.server_pids, std::chrono::seconds(10));
        return 1;
      }
      opt.ports.push_back(port);
    }
  }
  {
    std::string ports;
    for (auto port : opt.ports)
      ports += (ports.empty() ? "" : " ") + std::to_string(port);
    setenv("INAROW_LOAD_PORTS", ports.c_str(), 1);
  }
  const auto nodes = static_cast<int>(opt.ports.size());

  asio::io_context ioc;
  Stats stats;
  std::vector<tcp::endpoint> endpoints;
  for (auto port : opt.ports)
    endpoints.emplace_back(asio::ip::make_address(opt.host), port);
  auto rss_total = [&] {
    long sum = 0;
    for (int pid : opt.server_pids)
      sum += std::max(0L, rss_kib(pid));
    return sum;
  };
  const long rss_before = rss_total();

  // Bots first; then people in pairs, on the nodes in turn. A private game
  // is its creator's node's: the joiner sits on the next node or the same.
  std::vector<std::shared_ptr<Player>> players;
  std::vector<int> node_of;
  const int bot_players = static_cast<int>(opt.connections * opt.bot_fraction);
  const bool by_code = opt.pairing == "code";
  const bool joiner_elsewhere = opt.joiner_node == "next" && nodes > 1;
  for (int i = 0; i < opt.connections; ++i) {
    const auto seed = static_cast<std::uint64_t>(i) + 1;
    if (i < bot_players || !by_code) {
      players.push_back(std::make_shared<Player>(
          ioc, opt, stats, i < bot_players ? Player::Role::bot_games : Player::Role::seeker, false,
          seed));
      node_of.push_back(i % nodes);
      continue;
    }
    const int pair = (i - bot_players) / 2;
    if ((i - bot_players) % 2 == 0 && i + 1 < opt.connections) {
      players.push_back(
          std::make_shared<Player>(ioc, opt, stats, Player::Role::creator, false, seed));
      node_of.push_back(pair % nodes);
    } else if ((i - bot_players) % 2 == 1) {
      players.push_back(
          std::make_shared<Player>(ioc, opt, stats, Player::Role::joiner, joiner_elsewhere, seed));
      node_of.push_back((pair + (joiner_elsewhere ? 1 : 0)) % nodes);
      players[i - 1]->pair_with(players[i]);
    } else {  // the odd one out seeks alone and waits
      players.push_back(
          std::make_shared<Player>(ioc, opt, stats, Player::Role::seeker, false, seed));
      node_of.push_back(pair % nodes);
    }
  }
  auto guard = asio::make_work_guard(ioc);
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, opt.threads); ++t)
    threads.emplace_back([&] { ioc.run(); });

  // Connect in batches so the listen backlog is not overrun.
  const auto connect_start = Clock::now();
  for (int i = 0; i < opt.connections; ++i) {
    players[i]->start(endpoints[node_of[i]]);
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
  const long rss_connected = rss_total();

  for (auto& p : players)
    p->play();
  // Let matches get going before measuring.
  std::this_thread::sleep_for(std::chrono::seconds(opt.warmup));

  auto sample_servers = [&] {
    std::vector<double> cpu;
    for (int pid : opt.server_pids)
      cpu.push_back(inarow::bench::sample_process(pid).cpu_s);
    return cpu;
  };
  const auto probe_before = run_probe(opt.probe);
  const auto cpu_before = sample_servers();
  const auto self_before = inarow::bench::sample_process(getpid()).cpu_s;
  const auto machine_before = inarow::bench::sample_machine();
  stats.playing = true;
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(opt.seconds));
  stats.playing = false;
  const auto t1 = Clock::now();
  const double elapsed = std::chrono::duration<double>(t1 - t0).count();
  const auto machine_after = inarow::bench::sample_machine();
  const auto self_after = inarow::bench::sample_process(getpid()).cpu_s;
  const auto cpu_after = sample_servers();
  const auto probe_after = run_probe(opt.probe);
  const long rss_playing = rss_total();
  double loadavg = 0;
  std::ifstream("/proc/loadavg") >> loadavg;

  // A player silent for 5 s while everyone plays flat out is stuck: a move
  // with no answer, or a match that never came.
  int stalled = 0, stalled_in_match = 0;
  for (auto& p : players) {
    if (t1 - p->last_progress() > std::chrono::seconds(5)) {
      ++stalled;
      if (p->in_match()) ++stalled_in_match;
    }
  }
  stats.stopping = true;
  for (auto& p : players)
    p->stop();
  guard.reset();
  ioc.stop();
  for (auto& t : threads)
    t.join();

  std::vector<double> rtt, forwarded;
  {
    std::lock_guard lock(stats.mutex);
    rtt = stats.rtt_us;
    forwarded = stats.forwarded_rtt_us;
  }
  const std::uint64_t moves = stats.moves;
  const int people = opt.connections - bot_players;
  std::printf("servers          %d (ports", nodes);
  for (auto port : opt.ports)
    std::printf(" %u", port);
  std::printf(")\n");
  std::printf("connections      %d requested, %d connected, %d failed (%.2f s to connect)\n",
              opt.connections, stats.connected.load(), stats.failed.load(), connect_s);
  std::printf(
      "mix              %d playing %s bots, %d in person-vs-person pairs (%s%s), %s\n", bot_players,
      opt.level.c_str(), people, opt.pairing.c_str(),
      by_code ? (joiner_elsewhere ? ", joiner on the next node" : ", joiner on the same node") : "",
      opt.variant.c_str());
  std::printf("matches finished %llu in %.1f s\n",
              static_cast<unsigned long long>(stats.matches.load()), elapsed);
  std::printf("moves            %llu client moves acked, %.0f moves/s\n",
              static_cast<unsigned long long>(moves), static_cast<double>(moves) / elapsed);
  std::printf("move round trip  p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms (%zu samples)\n",
              percentile(rtt, 50.0) / 1000, percentile(rtt, 99.0) / 1000,
              percentile(rtt, 99.9) / 1000, rtt.size());
  if (!forwarded.empty()) {
    std::printf(
        "  forwarded      p50 %.2f ms, p99 %.2f ms (%zu moves in matches another node owns)\n",
        percentile(forwarded, 50.0) / 1000, percentile(forwarded, 99.0) / 1000, forwarded.size());
  }
  std::printf("errors           %llu (code joins retried: %llu)\n",
              static_cast<unsigned long long>(stats.errors.load()),
              static_cast<unsigned long long>(stats.code_retries.load()));
  std::printf(
      "stalled          %d players heard nothing in their last 5 s (%d in a match, the rest "
      "waiting for one)\n",
      stalled, stalled_in_match);
  std::printf(
      "event order      %llu events out of sequence, %llu moves or ends before their match began\n",
      static_cast<unsigned long long>(stats.seq_gaps.load()),
      static_cast<unsigned long long>(stats.early_events.load()));
  if (!cpu_before.empty()) {
    double total = 0;
    std::printf("server CPU       ");
    for (std::size_t n = 0; n < cpu_before.size(); ++n) {
      const double used = cpu_after[n] - cpu_before[n];
      total += used;
      std::printf("%s%.2f s", n ? " + " : "", used);
    }
    std::printf(" = %.2f s, %.1f us per move\n", total,
                moves ? total / static_cast<double>(moves) * 1e6 : 0.0);
  }
  const double machine_busy = machine_after.busy_s - machine_before.busy_s;
  const double machine_total = machine_after.total_s - machine_before.total_s;
  std::printf(
      "machine          %.0f%% of %ld cores busy while measuring (this driver %.0f%% of one); "
      "load average %.2f\n",
      machine_total > 0 ? 100.0 * machine_busy / machine_total : 0.0, sysconf(_SC_NPROCESSORS_ONLN),
      100.0 * (self_after - self_before) / elapsed, loadavg);
  if (!probe_before.empty()) {
    // Per move: per the servers' own count when the probe gives one
    // ("server_moves"), else per move acked here.
    std::map<std::string, double> before(probe_before.begin(), probe_before.end());
    double per = static_cast<double>(moves);
    for (auto& [name, value] : probe_after) {
      if (name == "server_moves" && before.contains(name)) per = value - before[name];
    }
    std::printf("probe            difference while measuring, and per move (of %.0f)\n", per);
    for (auto& [name, value] : probe_after) {
      if (!before.contains(name)) continue;
      const double d = value - before[name];
      std::printf("  %-30s %14.0f %12.3f\n", name.c_str(), d, per > 0 ? d / per : 0.0);
    }
  }
  if (!opt.server_pids.empty()) {
    std::printf(
        "server memory    %ld KiB idle, %ld KiB with everyone connected (%.1f KiB per "
        "connection), %ld KiB while playing (%.1f KiB per connection)\n",
        rss_before, rss_connected,
        static_cast<double>(rss_connected - rss_before) / std::max(1, stats.connected.load()),
        rss_playing,
        static_cast<double>(rss_playing - rss_before) / std::max(1, stats.connected.load()));
  }
  std::fflush(stdout);
  if (!opt.spawn.empty()) stop_servers(opt.server_pids, std::chrono::seconds(20));
  return stats.connected.load() == opt.connections ? 0 : 1;
}
