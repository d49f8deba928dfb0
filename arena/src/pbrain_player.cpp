#include "inarow/arena/pbrain_player.h"

#include <cctype>
#include <charconv>
#include <optional>
#include <vector>

#include "inarow/arena/subprocess.h"

namespace inarow::arena {
namespace {

using std::chrono::milliseconds;

class PbrainPlayer final : public Player {
 public:
  PbrainPlayer(std::string command, std::string name)
      : command_(std::move(command)), name_(std::move(name)) {}
  ~PbrainPlayer() override {
    if (child_) child_->kill();
  }
  std::string name() const override { return name_; }

  PlayerMove start(const Game& game, const TimeLimits& tc) override {
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
    const auto deadline = Clock::now() + std::max(tc.hang, tc.per_move);
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
    // The protocol's match clock: 0 is no limit. time_left always goes with
    // it (some brains, pbrain-rapfi among them, budget from time_left alone).
    send("INFO timeout_match " + std::to_string(tc.per_game.count()));
    send("INFO time_left " +
         std::to_string(tc.per_game.count() > 0 ? tc.per_game.count() : kNoClock));
    send("INFO rule 0");  // freestyle: k or more in a line wins, as our variants play
    return {};
  }

  PlayerMove move(const Game& game, milliseconds /*allotted*/, milliseconds clock_left,
                  Clock::time_point deadline) override {
    if (!child_) return fail(MoveStatus::crash, "not running");
    const Variant& v = game.variant();
    const auto target = game.moves();
    send("INFO time_left " +
         std::to_string(tc_.per_game.count() > 0 ? clock_left.count() : kNoClock));
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
    // Informational lines are skipped. An ERROR (or UNKNOWN) is the brain
    // rejecting a command, not a move: if it rejected the turn itself, no
    // move follows and the brain loses on time, with its complaint in the
    // record; if it rejected something else (an INFO it garbled), its move
    // still comes and counts.
    std::string line, complaint;
    for (;;) {
      const auto st = child_->read_line(line, deadline);
      if (st == Subprocess::ReadStatus::timeout) {
        child_->kill();
        child_.reset();
        return fail(MoveStatus::timeout,
                    complaint.empty() ? "no move by the deadline"
                                      : "no move by the deadline, after '" + complaint + "'");
      }
      if (st == Subprocess::ReadStatus::closed) {
        child_.reset();
        return fail(MoveStatus::crash, "the engine exited");
      }
      if (is_chatter(line)) continue;
      if (is_complaint(line)) {
        if (complaint.empty()) complaint = line;
        continue;
      }
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
  // Lines that are neither a move nor an answer: MESSAGE and DEBUG inform,
  // SUGGEST is only a brain's wish (we never ask for one).
  static bool is_chatter(const std::string& line) {
    return line.empty() || line.rfind("MESSAGE", 0) == 0 || line.rfind("DEBUG", 0) == 0 ||
           line.rfind("SUGGEST", 0) == 0;
  }
  // The brain rejected a command it was sent.
  static bool is_complaint(const std::string& line) {
    return line.rfind("ERROR", 0) == 0 || line.rfind("UNKNOWN", 0) == 0;
  }
  // INFO time_left with no match clock: as good as infinite (what Piskvork sends).
  static constexpr long long kNoClock = 2147483647;
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
  TimeLimits tc_;
  std::optional<Subprocess> child_;
  std::vector<Cell> known_;  // the moves the engine has been told of
};

}  // namespace

std::unique_ptr<Player> make_pbrain_player(std::string command, std::string name) {
  return std::make_unique<PbrainPlayer>(std::move(command), std::move(name));
}

}  // namespace inarow::arena
