// inarow-soak: a long run against inarow-server with the rough edges of real
// traffic. N clients (default 1,000) play for a duration (default an hour):
// people against people through the matchmaker and people against bots; the
// well-behaved ones drop their connection now and then and come back with
// their token and the last event seq they saw; a share of misbehaving ones
// send bad frames, moves out of turn and in matches that are not theirs, and
// frames over the size limit. It prints, at intervals and at the end, the
// server's memory (RSS), moves, reconnects, errors and acknowledged moves
// lost. A move is lost when a resume's match state does not hold a move the
// client was told of (acknowledged or published); every well-behaved client
// in a live match resumes once more at the end, so each live match is
// audited at least once.
//
// Exit status 0 only when no move was lost, no well-behaved client got an
// error or lost its connection unasked, and every client connected.
//
//   inarow-soak --spawn build/release/server/inarow-server -n 1000 --seconds 3600
//   inarow-soak --port 8080 --server-pid $(pidof inarow-server) -n 1000 --seconds 600
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <future>
#include <iostream>
#include <memory>
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
namespace v1 = inarow::v1;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
const Clock::time_point g_t0 = Clock::now();
double now_s() {
  return std::chrono::duration<double>(Clock::now() - g_t0).count();
}

struct Options {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;
  std::string spawn;
  int server_pid = 0;
  int clients = 1000;
  double seconds = 3600;
  double report_every = 60;
  double bot_fraction = 0.3;     // well-behaved clients playing bots
  double rogue_fraction = 0.05;  // misbehaving clients
  double drop_chance = 0.02;     // per acknowledged move: drop the connection and resume
  std::string variant = "connect4";
  std::string level = "beginner";
  int think_ms = 500;
};

struct Totals {
  std::atomic<int> connected{0};          // clients that got their first welcome
  std::atomic<std::uint64_t> moves{0};    // well-behaved clients' moves acknowledged
  std::atomic<std::uint64_t> matches{0};  // matches ended
  std::atomic<std::uint64_t> reconnects{0};
  std::atomic<std::uint64_t> audits{0};           // resumes whose state was checked
  std::atomic<std::uint64_t> ended_away{0};       // matches that ended while their client was away
  std::atomic<std::uint64_t> lost{0};             // moves told of, then missing after a resume
  std::atomic<std::uint64_t> errors{0};           // errors to well-behaved clients
  std::atomic<std::uint64_t> unasked_drops{0};    // well-behaved connections lost unasked
  std::atomic<std::uint64_t> rogue_frames{0};     // bad frames and bad requests sent
  std::atomic<std::uint64_t> rogue_errors{0};     // their (expected) answers
  std::atomic<std::uint64_t> rogue_closed{0};     // rogue connections the server closed
  std::atomic<std::uint64_t> ended_in_resume{0};  // resumed matches that ended before their state
  std::atomic<bool> stopping{false};
  std::atomic<int> final_audits_due{0};
  std::atomic<std::uint64_t> final_retries{0};  // final resumes tried again
};

class Client;

// One WebSocket connection of a client; a reconnect makes a new one.
class Conn : public inarow::bench::WsPlayer<Conn> {
 public:
  Conn(asio::io_context& ioc, std::uint64_t seed, Client* owner, std::uint64_t generation)
      : WsPlayer(ioc, seed, /*json=*/false), gen(generation), owner_(owner) {}
  const std::uint64_t gen;
  void on_open();
  void on_frame(std::string_view frame);
  void on_failure(const char* what, beast::error_code ec);

  using WsPlayer::after_think;
  using WsPlayer::random_move;
  using WsPlayer::send;
  using WsPlayer::send_frame;
  std::mt19937_64& rng() { return rng_; }

 private:
  Client* owner_;
};

enum class Kind { people, bots, rogue };

// A client: its identity and its view of its current match outlive its
// connections. All of it runs on the one io thread.
class Client {
 public:
  Client(asio::io_context& ioc, const Options& opt, Totals& totals, const tcp::endpoint& endpoint,
         Kind kind, std::uint64_t seed)
      : ioc_(ioc),
        opt_(opt),
        totals_(totals),
        endpoint_(endpoint),
        kind_(kind),
        seed_(seed),
        variant_(*inarow::Variant::parse(opt.variant)),
        game_(variant_) {}

  void connect() {
    ++generation_;
    note("connect");
    resuming_.clear();
    conn_ = std::make_shared<Conn>(ioc_, seed_ * 1000003 + generation_, this, generation_);
    conn_->connect(endpoint_, opt_.host, std::nullopt);
  }

  // At the end: resume once more so the live match is audited.
  void final_audit() {
    asio::post(ioc_, [this] {
      if (kind_ == Kind::rogue || match_id_.empty() || !welcomed_) return;
      totals_.final_audits_due.fetch_add(1);
      note(std::string("final audit, reconnect timers=") + std::to_string(timers_));
      final_audit_ = true;
      // A reconnect already under way is the resume; a second one would
      // leave one of the two connections open and unused.
      if (timers_ == 0) drop_and_resume();
    });
  }
  void close() {
    asio::post(ioc_, [this] {
      if (conn_) conn_->close();
    });
  }

  void on_open(Conn& c) {
    if (&c != conn_.get()) {
      note("open of stale conn " + std::to_string(c.gen));
      return;
    }
    v1::ClientMessage m;
    auto* h = m.mutable_hello();
    h->set_protocol_version(1);
    if (token_.empty()) {
      h->set_name(kind_ == Kind::rogue ? "rogue" : "soak");
    } else {
      h->set_token(token_);
      if (!match_id_.empty()) {
        auto* cursor = h->add_resume();
        cursor->set_match_id(match_id_);
        cursor->set_last_seq(seen_);
      }
    }
    c.send(m);
    note("sent hello rid=" + std::to_string(m.request_id()) + " token=" +
         (token_.empty() ? "0" : "1") + " resume=" + match_id_ + "@" + std::to_string(seen_));
  }

  void on_failure(Conn& c, const char* what, beast::error_code ec) {
    note("failure of conn " + std::to_string(c.gen) + " " + what + ": " + ec.message() +
         (&c != conn_.get() ? " (stale)" : "") + (dropping_ ? " (dropping)" : ""));
    if (&c != conn_.get() || dropping_) return;  // dropping: we closed it ourselves
    if (final_audit_) {
      // Everyone resumes at once at the end: a connection the backlog
      // turned away is tried again.
      totals_.final_retries.fetch_add(1, std::memory_order_relaxed);
      return reconnect_later();
    }
    if (totals_.stopping) return;
    if (kind_ == Kind::rogue) {
      // Its frame over the limit (or its noise) got it closed: come back.
      totals_.rogue_closed.fetch_add(1);
      reconnect_later();
      return;
    }
    if (totals_.unasked_drops.fetch_add(1) < 5) {
      std::cerr << "well-behaved client lost its connection: " << what << ": " << ec.message()
                << "\n";
    }
    reconnect_later();
  }

  void on_message(Conn& c, const v1::ServerMessage& m) {
    if (kind_ != Kind::rogue) note(describe(c, m));
    if (&c != conn_.get()) return;
    if (kind_ == Kind::rogue) return on_rogue_message(m);
    if (m.has_welcome()) return on_welcome(m.welcome());
    if (m.has_error()) {
      if (totals_.errors.fetch_add(1) < 5) {
        std::cerr << "error to a well-behaved client: " << m.error().ShortDebugString() << "\n";
      }
      return;
    }
    if (m.has_match_state()) return on_state(m.match_state());
    if (m.has_ack() && m.request_id() == move_request_) {
      move_request_ = 0;
      totals_.moves.fetch_add(1, std::memory_order_relaxed);
      // Not when the move ended the match: its end came before this ack and
      // a seek is on its way, which a drop now could see matched while we
      // are away, leaving us seated in a match we never heard of.
      if (!match_id_.empty() &&
          std::uniform_real_distribution<>(0, 1)(c.rng()) < opt_.drop_chance) {
        drop_and_resume();
        return;
      }
      return maybe_move();
    }
    if (m.has_event()) on_event(m.event());
  }

  // What happened to this client lately (for a final audit left unanswered).
  void dump(std::ostream& out) const {
    out << "client " << seed_ << " kind=" << static_cast<int>(kind_) << " player=" << player_id_
        << " match=" << match_id_ << " seen=" << seen_ << " moves=" << moves_.size()
        << " dropping=" << dropping_ << " timers=" << timers_
        << " conn=" << (conn_ ? conn_->gen : 0) << " move_request=" << move_request_ << "\n";
    for (const auto& line : trace_)
      out << "    " << line << "\n";
  }
  bool final_audit_due() const { return final_audit_; }

 private:
  void note(std::string what) {
    if (kind_ == Kind::rogue) return;
    char at[32];
    std::snprintf(at, sizeof at, "%9.3f g%llu ", now_s(),
                  static_cast<unsigned long long>(generation_));
    trace_.push_back(at + std::move(what));
    if (trace_.size() > 40) trace_.pop_front();
  }
  static std::string describe(const Conn& c, const v1::ServerMessage& m) {
    std::string s =
        "got on conn " + std::to_string(c.gen) + " rid=" + std::to_string(m.request_id()) + " ";
    if (m.has_welcome()) {
      s += "welcome resumed=" + std::to_string(m.welcome().resumed()) + " live=[";
      for (const auto& id : m.welcome().matches())
        s += id + " ";
      s += "] ended=[";
      for (const auto& id : m.welcome().ended_matches())
        s += id + " ";
      return s + "]";
    }
    if (m.has_match_state()) {
      const auto& st = m.match_state();
      return s + "state " + st.match_id() + " last_seq=" + std::to_string(st.last_seq()) +
             " moves=" + std::to_string(st.moves_size()) + " result=" + std::to_string(st.result());
    }
    if (m.has_event()) {
      const auto& e = m.event();
      return s + "event " + e.match_id() + " seq=" + std::to_string(e.seq()) + " " +
             (e.has_started()     ? "started"
              : e.has_move_made() ? "move ply " + std::to_string(e.move_made().ply())
              : e.has_ended()     ? "ended"
                                  : "other");
    }
    if (m.has_ack()) return s + "ack";
    if (m.has_error()) return s + "error " + m.error().ShortDebugString();
    return s + m.ShortDebugString().substr(0, 80);
  }

  // ------------------------------------------------------------ well-behaved
  void on_welcome(const v1::Welcome& w) {
    if (!welcomed_) {
      welcomed_ = true;
      token_ = w.token();
      player_id_ = w.player_id();
      totals_.connected.fetch_add(1);
      return new_match();
    }
    // Resumed: the match state follows the replayed events, if the match is
    // still live. One that ended while we were away is not audited.
    bool live = false;
    for (const auto& id : w.matches())
      live = live || id == match_id_;
    resuming_ = live ? match_id_ : std::string();
    if (!live) {
      if (!match_id_.empty()) totals_.ended_away.fetch_add(1, std::memory_order_relaxed);
      match_id_.clear();
      if (final_audit_) {
        final_audit_ = false;
        totals_.final_audits_due.fetch_sub(1);
      }
      new_match();
    }
  }

  // A move told of (ply n): the next one is kept; an earlier one must agree.
  void told(int ply, const std::string& move) {
    const auto known = static_cast<int>(moves_.size());
    if (ply == known + 1) {
      if (game_.play(move)) moves_.push_back(move);
    } else if (ply >= 1 && ply <= known && moves_[ply - 1] != move) {
      totals_.lost.fetch_add(1);
    }
  }

  void on_event(const v1::MatchEvent& e) {
    if (e.has_started()) {
      if (e.match_id() == match_id_) return;
      match_id_ = e.match_id();
      game_ = inarow::Game(variant_);
      moves_.clear();
      seen_ = e.seq();
      const auto& st = e.started().state();
      mine_ = st.first().id() == player_id_ ? inarow::Side::first : inarow::Side::second;
      return maybe_move();
    }
    if (e.match_id() != match_id_) return;  // the end of an earlier match
    seen_ = std::max<std::uint64_t>(seen_, e.seq());
    if (e.has_move_made()) {
      told(e.move_made().ply(), e.move_made().move());
      return maybe_move();
    }
    if (e.has_ended()) {
      totals_.matches.fetch_add(1, std::memory_order_relaxed);
      if (resuming_ == match_id_) {
        // It ended after the welcome called it live: its end comes among the
        // replayed events, and its state still follows. That state answers
        // (and audits) the resume, and then a new match is sought.
        totals_.ended_in_resume.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      match_id_.clear();
      return new_match();
    }
  }

  // The answer to a resume: everything we were told of must be there.
  void on_state(const v1::MatchState& st) {
    if (st.match_id() != match_id_) return;
    if (st.match_id() == resuming_) resuming_.clear();
    totals_.audits.fetch_add(1, std::memory_order_relaxed);
    const int stored = st.moves_size();
    for (int i = 0; i < static_cast<int>(moves_.size()); ++i) {
      if (i >= stored || st.moves(i) != moves_[i]) totals_.lost.fetch_add(1);
    }
    for (int i = static_cast<int>(moves_.size()); i < stored; ++i)
      told(i + 1, st.moves(i));
    seen_ = std::max<std::uint64_t>(seen_, st.last_seq());
    if (final_audit_) {
      final_audit_ = false;
      totals_.final_audits_due.fetch_sub(1);
    }
    if (st.result() != v1::RESULT_UNSPECIFIED) {
      match_id_.clear();
      return new_match();
    }
    maybe_move();
  }

  void maybe_move() {
    if (match_id_.empty() || move_request_ || game_.over() || game_.to_move() != mine_ ||
        totals_.stopping) {
      return;
    }
    const std::string match = match_id_;
    const auto ply = moves_.size();
    conn_->after_think(opt_.think_ms, [this, c = conn_, match, ply] {
      // Still the same connection, match and position?
      if (c != conn_ || match != match_id_ || ply != moves_.size() || move_request_ ||
          totals_.stopping) {
        return;
      }
      auto m = conn_->random_move(game_, match_id_);
      if (m) move_request_ = conn_->send(*m);
    });
  }

  void new_match() {
    if (totals_.stopping) return;
    v1::ClientMessage m;
    if (kind_ == Kind::bots) {
      auto* p = m.mutable_play_bot();
      p->set_variant(opt_.variant);
      p->set_level(opt_.level);
      p->set_side(conn_->rng()() % 2 ? v1::SIDE_FIRST : v1::SIDE_SECOND);
    } else {
      m.mutable_seek()->set_variant(opt_.variant);
    }
    conn_->send(m);
    note("sent " + std::string(kind_ == Kind::bots ? "play_bot" : "seek"));
  }

  void drop_and_resume() {
    note("drop");
    dropping_ = true;
    move_request_ = 0;  // an unanswered move is settled by the resume's state
    conn_->close();
    totals_.reconnects.fetch_add(1, std::memory_order_relaxed);
    reconnect_later();
  }

  void reconnect_later() {
    auto timer = std::make_shared<asio::steady_timer>(ioc_);
    timer->expires_after(std::chrono::milliseconds(50 + conn_->rng()() % 200));
    ++timers_;
    timer->async_wait([this, timer](beast::error_code) {
      --timers_;
      note("reconnect timer");
      if (totals_.stopping && !final_audit_) return;
      dropping_ = false;
      if (kind_ == Kind::rogue) {
        token_.clear();  // a rogue comes back as someone new
        rogue_actions_ = 0;
      }
      connect();
    });
  }

  // ------------------------------------------------------------ rogue
  void on_rogue_message(const v1::ServerMessage& m) {
    if (m.has_welcome()) {
      if (!welcomed_) totals_.connected.fetch_add(1);
      welcomed_ = true;
      return rogue_next();
    }
    if (m.has_error()) totals_.rogue_errors.fetch_add(1, std::memory_order_relaxed);
  }

  void rogue_next() {
    if (totals_.stopping) return;
    auto c = conn_;
    c->after_think(std::max(opt_.think_ms, 200), [this, c] {
      if (c != conn_ || totals_.stopping) return;
      auto& rng = c->rng();
      totals_.rogue_frames.fetch_add(1, std::memory_order_relaxed);
      switch (rng() % 6) {
        case 0: {  // noise that is no protobuf message
          std::string junk(1 + rng() % 64, '\0');
          for (auto& ch : junk)
            ch = static_cast<char>(rng());
          c->send_frame(std::move(junk));
          break;
        }
        case 1: {  // a move in a match that does not exist
          v1::ClientMessage m;
          m.mutable_move()->set_match_id("no-such-match");
          m.mutable_move()->set_move("a1");
          c->send(m);
          break;
        }
        case 2: {  // a move that is no move
          v1::ClientMessage m;
          m.mutable_move()->set_match_id("x");
          m.mutable_move()->set_move(std::string(300, 'z'));
          c->send(m);
          break;
        }
        case 3: {  // a second hello
          v1::ClientMessage m;
          m.mutable_hello()->set_protocol_version(1);
          c->send(m);
          break;
        }
        case 4: {  // an unknown variant
          v1::ClientMessage m;
          m.mutable_seek()->set_variant("chess");
          c->send(m);
          break;
        }
        default: {  // now and then a frame over the limit: the server closes us
          if (++rogue_actions_ % 8 == 0) {
            c->send_frame(std::string(70 * 1024, 'x'));
          } else {
            v1::ClientMessage m;
            m.mutable_resign()->set_match_id("nothing-to-resign");
            c->send(m);
          }
        }
      }
      rogue_next();
    });
  }

  asio::io_context& ioc_;
  const Options& opt_;
  Totals& totals_;
  tcp::endpoint endpoint_;
  Kind kind_;
  std::uint64_t seed_;
  std::uint64_t generation_ = 0;
  std::shared_ptr<Conn> conn_;
  bool welcomed_ = false;
  bool dropping_ = false;
  bool final_audit_ = false;
  std::string token_, player_id_, match_id_;
  // The match a resume's welcome listed as live, until its state comes.
  std::string resuming_;
  std::uint64_t seen_ = 0;
  inarow::Variant variant_;
  inarow::Game game_;
  std::vector<std::string> moves_;  // the current match's moves we were told of
  inarow::Side mine_ = inarow::Side::first;
  std::uint64_t move_request_ = 0;
  int rogue_actions_ = 0;
  int timers_ = 0;

  std::deque<std::string> trace_;
};

void Conn::on_open() {
  owner_->on_open(*this);
}
void Conn::on_frame(std::string_view frame) {
  v1::ServerMessage m;
  if (parse(frame, m)) owner_->on_message(*this, m);
}
void Conn::on_failure(const char* what, beast::error_code ec) {
  owner_->on_failure(*this, what, ec);
}

void report(const char* when, double t, const Totals& s, int pid) {
  const auto p = inarow::bench::sample_process(pid);
  std::printf(
      "%-6s t=%7.0fs rss=%8ld KiB clients=%5d moves=%9llu matches=%7llu reconnects=%6llu "
      "errors=%llu lost=%llu drops=%llu rogue(sent=%llu answered=%llu closed=%llu)\n",
      when, t, p.rss_kib, s.connected.load(), static_cast<unsigned long long>(s.moves.load()),
      static_cast<unsigned long long>(s.matches.load()),
      static_cast<unsigned long long>(s.reconnects.load()),
      static_cast<unsigned long long>(s.errors.load()),
      static_cast<unsigned long long>(s.lost.load()),
      static_cast<unsigned long long>(s.unasked_drops.load()),
      static_cast<unsigned long long>(s.rogue_frames.load()),
      static_cast<unsigned long long>(s.rogue_errors.load()),
      static_cast<unsigned long long>(s.rogue_closed.load()));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"inarow-soak: a long run with reconnects, bad frames and bots"};
  app.option_defaults()->always_capture_default();
  app.add_option("--host", opt.host, "Server address");
  app.add_option("--port", opt.port, "Server port");
  app.add_option("--spawn", opt.spawn, "Start this inarow-server binary on an ephemeral port");
  app.add_option("--server-pid", opt.server_pid, "Server process, for its memory (RSS)");
  app.add_option("--clients,-n", opt.clients, "Clients");
  app.add_option("--seconds", opt.seconds, "How long to run");
  app.add_option("--report-every", opt.report_every, "Seconds between reports");
  app.add_option("--bot-fraction", opt.bot_fraction, "Share of clients playing bots");
  app.add_option("--rogue-fraction", opt.rogue_fraction, "Share of misbehaving clients");
  app.add_option("--drop-chance", opt.drop_chance,
                 "Chance, per acknowledged move, that a client drops and resumes");
  app.add_option("--variant", opt.variant, "Variant to play");
  app.add_option("--level", opt.level, "Bot level");
  app.add_option("--think-ms", opt.think_ms, "Mean pause before each move (uniform +-50%)");
  CLI11_PARSE(app, argc, argv);
  if (!inarow::Variant::parse(opt.variant)) {
    std::cerr << "unknown variant " << opt.variant << "\n";
    return 2;
  }

  std::filesystem::path dir;
  if (!opt.spawn.empty()) {
    char tmpl[] = "/tmp/inarow-soak-XXXXXX";
    if (!mkdtemp(tmpl)) return 2;
    dir = tmpl;
    auto [pid, port] =
        inarow::bench::spawn_server(opt.spawn, {"--store", (dir / "soak.db").string()});
    if (port == 0) {
      std::cerr << "could not start " << opt.spawn << "\n";
      return 1;
    }
    opt.server_pid = pid;
    opt.port = port;
  }

  asio::io_context ioc;
  Totals totals;
  const tcp::endpoint endpoint(asio::ip::make_address(opt.host), opt.port);
  std::vector<std::unique_ptr<Client>> clients;
  const int rogues = static_cast<int>(opt.clients * opt.rogue_fraction);
  const int bots = static_cast<int>(opt.clients * opt.bot_fraction);
  for (int i = 0; i < opt.clients; ++i) {
    const Kind kind = i < rogues ? Kind::rogue : i < rogues + bots ? Kind::bots : Kind::people;
    clients.push_back(std::make_unique<Client>(ioc, opt, totals, endpoint, kind,
                                               static_cast<std::uint64_t>(i) + 1));
  }
  auto guard = asio::make_work_guard(ioc);
  std::thread io([&] { ioc.run(); });

  std::printf("soak: %d clients (%d playing %s bots, %d rogue, the rest in pairs), %s, %.0f s\n",
              opt.clients, bots, opt.level.c_str(), rogues, opt.variant.c_str(), opt.seconds);
  const auto t0 = Clock::now();
  auto since = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  report("start", 0, totals, opt.server_pid);
  for (int i = 0; i < opt.clients; ++i) {
    asio::post(ioc, [c = clients[i].get()] { c->connect(); });
    // In batches, so the listen backlog is not overrun.
    if (i % 100 == 99) {
      const auto wait_until = Clock::now() + std::chrono::seconds(10);
      while (totals.connected < i - 50 && Clock::now() < wait_until)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  double next_report = opt.report_every;
  while (since() < opt.seconds) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (since() >= next_report) {
      report("at", since(), totals, opt.server_pid);
      next_report += opt.report_every;
    }
  }
  // The end: stop playing, then every client in a live match resumes once
  // more (its match state is the audit), then everyone goes.
  totals.stopping = true;
  for (auto& c : clients)
    c->final_audit();
  const auto audit_deadline = Clock::now() + std::chrono::seconds(30);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  while (totals.final_audits_due > 0 && Clock::now() < audit_deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const int unaudited = totals.final_audits_due.load();
  if (unaudited > 0) {
    std::promise<void> done;
    asio::post(ioc, [&] {
      for (auto& c : clients)
        if (c->final_audit_due()) c->dump(std::cout);
      done.set_value();
    });
    done.get_future().wait();
  }
  report("end", since(), totals, opt.server_pid);
  for (auto& c : clients)
    c->close();
  guard.reset();
  ioc.run_for(std::chrono::milliseconds(200));
  ioc.stop();
  io.join();

  const int well_behaved = opt.clients - rogues;
  std::printf(
      "acknowledged moves lost: %llu (audits: %llu; matches ended while away, not audited: %llu; "
      "ended between a resume's welcome and its state: %llu; final audits unanswered: %d, "
      "retried: %llu)\n",
      static_cast<unsigned long long>(totals.lost.load()),
      static_cast<unsigned long long>(totals.audits.load()),
      static_cast<unsigned long long>(totals.ended_away.load()),
      static_cast<unsigned long long>(totals.ended_in_resume.load()), unaudited,
      static_cast<unsigned long long>(totals.final_retries.load()));
  std::printf("errors to well-behaved clients: %llu; connections they lost unasked: %llu\n",
              static_cast<unsigned long long>(totals.errors.load()),
              static_cast<unsigned long long>(totals.unasked_drops.load()));
  if (!opt.spawn.empty()) {
    kill(opt.server_pid, SIGTERM);
    int status = 0;
    waitpid(opt.server_pid, &status, 0);
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  const bool ok = totals.lost == 0 && totals.errors == 0 && totals.unasked_drops == 0 &&
                  unaudited == 0 && totals.connected >= opt.clients && well_behaved > 0;
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
