#include "inarow/bots/players.h"

#include <cctype>
#include <charconv>
#include <exception>

#include "inarow/bots/subprocess.h"
#include "inarow/engine/search.h"

namespace inarow::bots {
namespace {

using std::chrono::milliseconds;

class BotPlayer final : public Player {
 public:
  BotPlayer(std::unique_ptr<Bot> bot, std::string name, const std::atomic<bool>* stop)
      : bot_(std::move(bot)), name_(std::move(name)), stop_(stop) {}
  std::string name() const override { return name_; }

  PlayerMove move(const Game& game, milliseconds allotted, milliseconds /*clock_left*/,
                  ArenaClock::time_point /*deadline*/) override {
    PlayerMove out;
    try {
      out.move = bot_->choose(game, MoveBudget{allotted, stop_}).move;
    } catch (const std::exception& e) {
      out.status = MoveStatus::crash;
      out.detail = std::string("exception: ") + e.what();
    } catch (...) {
      out.status = MoveStatus::crash;
      out.detail = "unknown exception";
    }
    return out;
  }

 private:
  std::unique_ptr<Bot> bot_;
  std::string name_;
  const std::atomic<bool>* stop_;
};

class PbrainPlayer final : public Player {
 public:
  PbrainPlayer(std::string command, std::string name)
      : command_(std::move(command)), name_(std::move(name)) {}
  ~PbrainPlayer() override {
    if (child_) child_->kill();
  }
  std::string name() const override { return name_; }

  PlayerMove start(const Game& game, const TimeControl& tc) override {
    const Variant& v = game.variant();
    if (v.gravity) return fail(MoveStatus::crash, "the pbrain protocol has no gravity variants");
    std::string error;
    child_ = Subprocess::spawn(Subprocess::split_command(command_), &error);
    if (!child_) return fail(MoveStatus::crash, error);
    tc_ = tc;
    send(v.width == v.height
             ? "START " + std::to_string(v.width)
             : "RECTSTART " + std::to_string(v.width) + "," + std::to_string(v.height));
    std::string line;
    const auto deadline = ArenaClock::now() + std::max(tc.hang, tc.per_move);
    for (;;) {
      const auto st = child_->read_line(line, deadline);
      if (st == Subprocess::ReadStatus::timeout)
        return fail(MoveStatus::timeout, "no answer to START");
      if (st == Subprocess::ReadStatus::closed) return fail(MoveStatus::crash, "exited at START");
      if (is_chatter(line)) continue;
      if (line.rfind("OK", 0) == 0) break;
      return fail(MoveStatus::crash, "START refused: " + line);
    }
    const milliseconds turn = tc.per_move.count() > 0   ? tc.per_move
                              : tc.per_game.count() > 0 ? tc.per_game
                                                        : tc.hang;
    send("INFO timeout_turn " + std::to_string(turn.count()));
    send("INFO timeout_match " + std::to_string(tc.per_game.count()));
    send("INFO rule 0");  // freestyle: k or more in a line wins, as our variants play
    return {};
  }

  PlayerMove move(const Game& game, milliseconds /*allotted*/, milliseconds clock_left,
                  ArenaClock::time_point deadline) override {
    if (!child_) return fail(MoveStatus::crash, "not running");
    const Variant& v = game.variant();
    const auto target = game.moves();
    if (tc_.per_game.count() > 0) send("INFO time_left " + std::to_string(clock_left.count()));
    const bool extends = target.size() == known_.size() + 1 &&
                         std::equal(known_.begin(), known_.end(), target.begin());
    if (target.empty()) {
      send("BEGIN");
    } else if (extends) {
      send("TURN " + coords(v, target.back()));
    } else {
      // Anything else (an opening, a new game): the whole board, own stones 1.
      send("BOARD");
      const int me = int(target.size() % 2);
      for (std::size_t i = 0; i < target.size(); ++i)
        send(coords(v, target[i]) + "," + (int(i % 2) == me ? "1" : "2"));
      send("DONE");
    }
    std::string line;
    for (;;) {
      const auto st = child_->read_line(line, deadline);
      if (st == Subprocess::ReadStatus::timeout) {
        child_->kill();
        child_.reset();
        return fail(MoveStatus::timeout, "no move by the deadline");
      }
      if (st == Subprocess::ReadStatus::closed) {
        child_.reset();
        return fail(MoveStatus::crash, "the engine exited");
      }
      if (is_chatter(line)) continue;
      break;
    }
    PlayerMove out;
    int x = -1, y = -1;
    if (!parse_xy(line, x, y) || x < 0 || y < 0 || x >= v.width || y >= v.height) {
      out.status = MoveStatus::illegal;
      out.detail = "bad move '" + line + "'";
      return out;
    }
    out.move = v.cell(x, v.height - 1 - y);
    known_ = target;
    known_.push_back(out.move);
    return out;
  }

  void finish(const Game& /*game*/) override {
    if (!child_) return;
    send("END");
    child_->stop(milliseconds(300));
    child_.reset();
  }

 private:
  static bool is_chatter(const std::string& line) {
    return line.empty() || line.rfind("MESSAGE", 0) == 0 || line.rfind("DEBUG", 0) == 0 ||
           line.rfind("SUGGEST", 0) == 0 || line.rfind("UNKNOWN", 0) == 0;
  }
  static std::string coords(const Variant& v, Cell c) {
    return std::to_string(v.col(c)) + "," + std::to_string(v.height - 1 - v.row(c));
  }
  static bool parse_xy(const std::string& line, int& x, int& y) {
    const auto comma = line.find(',');
    if (comma == std::string::npos) return false;
    auto trim = [](std::string_view s) {
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
      return s;
    };
    const auto a = trim(std::string_view(line).substr(0, comma));
    const auto b = trim(std::string_view(line).substr(comma + 1));
    return std::from_chars(a.data(), a.data() + a.size(), x).ec == std::errc{} &&
           std::from_chars(b.data(), b.data() + b.size(), y).ec == std::errc{};
  }
  void send(const std::string& line) {
    if (child_) child_->write_line(line);
  }
  PlayerMove fail(MoveStatus status, std::string detail) {
    if (child_) {
      child_->kill();
      child_.reset();
    }
    PlayerMove out;
    out.status = status;
    out.detail = std::move(detail);
    return out;
  }

  std::string command_;
  std::string name_;
  TimeControl tc_;
  std::optional<Subprocess> child_;
  std::vector<Cell> known_;  // the moves the engine has been told of
};

class WeightsBot final : public Bot {
 public:
  WeightsBot(const Variant& v, Weights w, int depth, std::uint64_t nodes, std::size_t tt)
      : searcher_(v, std::move(w), tt), depth_(depth), nodes_(nodes) {}
  std::string name() const override { return "weights"; }
  Choice choose(const Game& game, const MoveBudget& budget) override {
    const auto r = searcher_.search(
        game, Limits{.depth = depth_, .nodes = nodes_, .time = budget.time, .stop = budget.stop});
    return Choice{r.best, r.score, r.depth, r.nodes};
  }
  void new_game() override { searcher_.clear(); }

 private:
  Searcher searcher_;
  int depth_;
  std::uint64_t nodes_;
};

}  // namespace

std::unique_ptr<Player> make_bot_player(std::unique_ptr<Bot> bot, std::string name,
                                        const std::atomic<bool>* stop) {
  return std::make_unique<BotPlayer>(std::move(bot), std::move(name), stop);
}

std::unique_ptr<Player> make_pbrain_player(std::string command, std::string name) {
  return std::make_unique<PbrainPlayer>(std::move(command), std::move(name));
}

expected<Participant, Error> Participant::parse(std::string_view text) {
  Participant p;
  std::string_view spec = text;
  // An optional "name:" prefix: a word before a colon that is not "pbrain".
  const auto colon = text.find(':');
  if (colon != std::string_view::npos && text.substr(0, colon) != "pbrain" &&
      text.substr(0, colon).find_first_of("=,/ ") == std::string_view::npos) {
    p.name = std::string(text.substr(0, colon));
    spec = text.substr(colon + 1);
  }
  p.spec = std::string(spec);
  if (spec.rfind("pbrain:", 0) == 0) {
    p.external = true;
    p.command = std::string(spec.substr(7));
    if (p.command.empty())
      return unexpected(Error{ErrorCode::bad_syntax, 7, "pbrain: needs a command"});
    if (p.name.empty()) {
      auto argv0 = Subprocess::split_command(p.command).front();
      p.name = argv0.substr(argv0.find_last_of('/') + 1);
    }
    return p;
  }
  auto bot = BotSpec::parse(spec);
  if (!bot) return unexpected(bot.error());
  p.bot = std::move(bot).value();
  if (p.name.empty()) p.name = p.spec;
  return p;
}

expected<std::unique_ptr<Player>, Error> make_player(const Variant& v, const Participant& p,
                                                     std::uint64_t seed,
                                                     const std::atomic<bool>* stop) {
  if (p.external) return make_pbrain_player(p.command, p.name);
  auto bot = make_bot(v, p.bot, seed);
  if (!bot) return unexpected(bot.error());
  return make_bot_player(std::move(bot).value(), p.name, stop);
}

std::unique_ptr<Bot> make_weights_bot(const Variant& v, Weights weights, int depth,
                                      std::uint64_t nodes, std::size_t tt_megabytes) {
  return std::make_unique<WeightsBot>(v, std::move(weights), depth, nodes, tt_megabytes);
}

}  // namespace inarow::bots
