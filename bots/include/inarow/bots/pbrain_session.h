// The Gomocup "pbrain" protocol, brain side: a manager sends one command a
// line on standard input (START, RECTSTART, BEGIN, TURN, BOARD ... DONE, INFO,
// TAKEBACK, RESTART, ABOUT, END) and reads the answers on standard output.
// Coordinates are "x,y" from 0 with x the column and y the row from the top.
// INFO rule: value 1 (Gomocup: exactly five wins) plays the standard rule;
// the other values are not ours and change nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "inarow/bots/bot.h"

namespace inarow::bots {

struct PbrainOptions {
  BotSpec bot;  // how we play
  int k = 5;    // stones in a line that win on any board size
  std::uint64_t seed = 1;
  // No answer sooner than this after its command (pbrain_session.cpp says
  // why); the fuzz target sets 0.
  std::chrono::milliseconds min_answer{30};
};

class PbrainSession {
 public:
  explicit PbrainSession(PbrainOptions options);
  ~PbrainSession();

  // Handle one input line, writing any answer (flushed) to `out`. Returns
  // false after END: the brain should exit.
  bool handle(std::string_view line, std::ostream& out);

  // For tests: the game as the brain sees it, if started.
  const Game* game() const { return game_.get(); }

 private:
  void start(int width, int height, std::ostream& out);
  void answer_move(std::ostream& out);
  std::optional<Cell> parse_cell(std::string_view text) const;
  std::string format_cell(Cell c) const;
  MoveBudget budget() const;
  struct Built {
    Variant variant;
    std::unique_ptr<Bot> bot;
  };
  // The variant and a bot for a board of this size under the rule.
  expected<Built, std::string> build(int width, int height, bool exact) const;
  // The game and bot again under the rule, the stones kept; on failure
  // an ERROR line and nothing changed.
  void set_rule(bool exact, std::ostream& out);

  PbrainOptions options_;
  std::unique_ptr<Game> game_;
  std::unique_ptr<Bot> bot_;
  bool in_board_ = false;
  std::vector<std::pair<Cell, int>> board_;  // BOARD lines: cell, field (1 own, 2 theirs)
  std::int64_t timeout_turn_ = 0;            // 0: no per-move limit given
  std::int64_t timeout_match_ = 0;
  std::int64_t time_left_ = -1;  // -1: not given
  bool exact_ = false;           // INFO rule 1: exactly five wins
};

// Read commands from `in` until END or end of input.
int run_pbrain(std::istream& in, std::ostream& out, const PbrainOptions& options);

}  // namespace inarow::bots
