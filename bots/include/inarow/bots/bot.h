// Bots: a Bot chooses a move for a position under limits. Strength levels are
// named presets; randomness is seeded so a game can be replayed.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "inarow/engine/evaluator.h"
#include "inarow/engine/game.h"
#include "inarow/engine/search.h"

namespace inarow::bots {

// What a bot may spend on one move: the time it may use (0 = its preset's
// own), a flag another thread sets to stop it, and whether that time is
// the move's alone (Limits::use_all_time: a fixed time per move, which the
// search then uses to its end).
struct MoveBudget {
  std::chrono::milliseconds time{0};
  const std::atomic<bool>* stop = nullptr;
  bool use_all_time = false;
};

struct Choice {
  Cell move = kNoCell;
  Score score = 0;
  int depth = 0;
  std::uint64_t nodes = 0;
};

class Bot {
 public:
  virtual ~Bot() = default;
  virtual std::string name() const = 0;
  // The game must not be over. Always returns a legal move.
  virtual Choice choose(const Game& game, const MoveBudget& budget) = 0;
  // Forget state between games (search tables), keeping the seed stream.
  virtual void new_game() {}
};

// A strength preset. Elo is measured by `inarow-arena calibrate`.
struct Level {
  std::string_view name;
  int depth;            // plies, 0 = unlimited (by time or nodes)
  int time_ms;          // per move, 0 = unlimited (by depth or nodes)
  int blunder_percent;  // chance of a uniformly random legal move
  int noise;            // picks among moves within this many score points of the best
  bool solve_small;     // solve exactly when few enough cells are empty
  std::uint64_t nodes = 0;  // per move, 0 = unlimited
};

// beginner, easy, medium, hard, expert, master: weakest first. The names are
// the same on every board; the presets behind them are not. Wide boards
// (k >= 5 without gravity: gomoku and its kin) have a table of their own,
// since a ply there is worth more and costs far more than in connect four.
std::span<const Level> levels();
std::span<const Level> levels(const Variant& v);
std::optional<Level> find_level(std::string_view name);
std::optional<Level> find_level(std::string_view name, const Variant& v);

// A bot specification: "random", a level name ("hard"), or explicit settings
// "depth=6,time=200,nodes=100000,noise=0,blunder=0,weights=path,tt=16,solve=1"
// (a level name may come first: "hard,weights=w.txt").
struct BotSpec {
  std::string text;  // as given, for display
  bool random = false;
  Level level{"custom", 4, 0, 0, 0, false};
  std::uint64_t nodes = 0;
  std::string weights_path;  // empty = built-in defaults
  std::size_t tt_megabytes = 8;
  std::string eval;  // "shapes" or "windows"; empty = the weights' choice

  static expected<BotSpec, Error> parse(std::string_view text);
  // The same text with a level name resolved in `v`'s table (see levels()).
  static expected<BotSpec, Error> parse(std::string_view text, const Variant& v);

 private:
  static expected<BotSpec, Error> parse_with(std::string_view text, std::span<const Level> table);
};

std::unique_ptr<Bot> make_random_bot(std::uint64_t seed);
// A searching bot; the weights file is read here (its error is returned).
expected<std::unique_ptr<Bot>, Error> make_bot(const Variant& v, const BotSpec& spec,
                                               std::uint64_t seed);
// Convenience for a level by name ("medium"); unknown names give an Error.
expected<std::unique_ptr<Bot>, Error> make_level_bot(const Variant& v, std::string_view level,
                                                     std::uint64_t seed);

// A searching bot over explicit weights (the tuners play these): fixed depth
// and/or node limit, the best move of the search, no randomness.
std::unique_ptr<Bot> make_weights_bot(const Variant& v, Weights weights, int depth,
                                      std::uint64_t nodes = 0, std::size_t tt_megabytes = 4);

}  // namespace inarow::bots
