// The gomoku tactics suite (bench/gomoku/tactics.txt): positions with a
// forced win by fours (VCF) for the side to move, and positions where
// exactly one move stops the opponent's. Its file format, and the facts
// each line claims, checked with the engine's VCF solver, so that the
// generator (`inarow-engine find-tactics`), the bench (`inarow-engine
// tactics`) and the tests agree on what a line means.
//
// One position a line; `#` starts a comment, blank lines are skipped:
//   vcf 23 h8i9j10...   the side to move has a VCF, the shortest 23 plies
//                       long (its fours, the blocks, the five: 12 attacking
//                       moves)
//   hold g7 h8i9j10...  the opponent has a VCF (as if it could move now);
//                       after g7 it has none at all, after every other
//                       legal move it still has one (the side to move has
//                       neither a VCF nor a four: see classify)
// Positions are freestyle gomoku (15x15, five or more wins).
#pragma once

#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "inarow/common/error.h"
#include "inarow/common/expected.h"
#include "inarow/common/text_file.h"
#include "inarow/engine/forcing.h"
#include "inarow/engine/game.h"
#include "inarow/engine/notation.h"

namespace inarow::tools {

struct Tactic {
  enum class Kind { vcf, hold };
  Kind kind = Kind::vcf;
  int plies = 0;        // vcf: the shortest VCF's length
  Cell cell = kNoCell;  // hold: the one move that holds
  std::string moves;    // the position, in the engine's notation
  int line = 0;         // where it is in the file (1-based), 0 if from no file

  bool operator==(const Tactic& o) const {
    return kind == o.kind && plies == o.plies && cell == o.cell;
  }
};

inline std::string format_tactic(const Variant& v, const Tactic& t) {
  return (t.kind == Tactic::Kind::vcf ? "vcf " + std::to_string(t.plies)
                                      : "hold " + format_move(v, t.cell)) +
         " " + t.moves;
}

// The suite's text, every line checked for its syntax and for a position
// that can be played and is not over (not for its facts: see classify).
inline expected<std::vector<Tactic>, Error> parse_tactics(const Variant& v,
                                                          const std::string& text) {
  std::vector<Tactic> out;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  auto fail = [&](const std::string& what) {
    return unexpected(
        Error{ErrorCode::bad_syntax, 0, "line " + std::to_string(line_no) + ": " + what});
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    std::string kind, value, moves, extra;
    if (!(fields >> kind)) continue;
    if (!(fields >> value >> moves) || fields >> extra)
      return fail("expected 'vcf PLIES MOVES' or 'hold CELL MOVES'");
    Tactic t;
    t.moves = moves;
    t.line = line_no;
    const auto game = Game::parse(v, moves);
    if (!game) return fail(moves + ": " + game.error().describe());
    if (game->over()) return fail(moves + ": the game is over");
    if (kind == "vcf") {
      t.kind = Tactic::Kind::vcf;
      const int plies = std::atoi(value.c_str());
      if (plies < 1 || plies % 2 == 0 || std::to_string(plies) != value)
        return fail("'" + value + "' is not an odd number of plies");
      t.plies = plies;
    } else if (kind == "hold") {
      t.kind = Tactic::Kind::hold;
      const auto cell = game->parse_move(value);
      if (!cell || !game->is_legal(*cell)) return fail("'" + value + "' is not a legal move");
      t.cell = *cell;
    } else {
      return fail("'" + kind + "' is neither vcf nor hold");
    }
    out.push_back(std::move(t));
  }
  return out;
}

inline expected<std::vector<Tactic>, Error> read_tactics(const Variant& v,
                                                         const std::string& path) {
  const auto text = read_text_file(path, "tactics file");
  if (!text) return unexpected(text.error());
  auto tactics = parse_tactics(v, *text);
  if (tactics) return tactics;
  Error e = tactics.error();
  e.message = path + ": " + e.message;
  return unexpected(std::move(e));
}

// What the solver proves of a position, searching every VCF length (the
// whole board's cells) with at most `budget` nodes a search:
//   - the side to move has a VCF: vcf, its shortest length;
//   - it has none, the opponent has one, the side to move has no four, and
//     exactly one of its moves leaves the opponent none: hold, that move;
//   - anything else, or any search cut short by the budget: nothing.
// "No four" keeps each move quiet: the opponent then moves freely after it
// and its VCF alone decides, where after a four it would first have to
// block (a four only delays; it is no defence).
inline std::optional<Tactic> classify(VcfSolver& solver, Game game, std::uint64_t budget) {
  const Variant& v = game.variant();
  const int all = v.cells();
  const Side us = game.to_move(), them = opponent(us);
  const VcfAnswer ours = solver.find(game, us, all, budget);
  if (ours.move != kNoCell) {
    Tactic t;
    t.kind = Tactic::Kind::vcf;
    t.plies = ours.plies;
    t.moves = game.notation();
    return t;
  }
  if (!ours.none || solver.find(game, them, all, budget).move == kNoCell) return std::nullopt;
  std::vector<Cell> moves = game.legal_moves(), holds;
  for (const Cell m : moves) {
    (void)game.play(m);
    const bool four = solver.find(game, us, 1, budget).move != kNoCell;  // a five cell now
    game.undo();
    if (four) return std::nullopt;
  }
  for (const Cell m : moves) {
    (void)game.play(m);
    const VcfAnswer theirs = solver.find(game, them, all, budget);
    game.undo();
    if (theirs.none) holds.push_back(m);
    if (theirs.move == kNoCell && !theirs.none) return std::nullopt;  // cut short
  }
  if (holds.size() != 1) return std::nullopt;
  Tactic t;
  t.kind = Tactic::Kind::hold;
  t.cell = holds.front();
  t.moves = game.notation();
  return t;
}

// Real games seldom hold a VCF longer than 21 plies: strong players do not
// leave one, weak ones lose to a short one first. A longer one is made from
// a real position with a VCF: the side to move passes (a stone on a cell
// with no stone within four cells on any side, so on no line with any
// other) and the defender adds a stone where it makes the shortest VCF
// longest without stopping it; again while that makes it longer, up to
// max_plies. The game goes on by those two moves a time, so the result is
// a position of the same game. Nothing if the first step gains nothing.
inline std::optional<Game> lengthen(VcfSolver& solver, Game game, int max_plies,
                                    std::uint64_t budget) {
  const Variant& v = game.variant();
  const Side us = game.to_move();
  auto shortest = [&](const Game& g) {
    const VcfAnswer a = solver.find(g, us, v.cells(), budget);
    return a.move != kNoCell ? a.plies : 0;
  };
  auto isolated = [&](Cell c) {
    for (int dc = -4; dc <= 4; ++dc)
      for (int dr = -4; dr <= 4; ++dr) {
        const int col = v.col(c) + dc, row = v.row(c) + dr;
        if (col >= 0 && col < v.width && row >= 0 && row < v.height && game.at(col, row))
          return false;
      }
    return true;
  };
  int plies = shortest(game);
  bool lengthened = false;
  while (plies > 0 && plies < max_plies) {
    Cell pass = kNoCell;
    for (const Cell c : game.legal_moves())
      if (isolated(c)) {
        pass = c;
        break;
      }
    if (pass == kNoCell) break;
    (void)game.play(pass);
    Cell best = kNoCell;
    int longest = plies;
    for (const Cell c : game.legal_moves()) {
      (void)game.play(c);
      const int p = game.over() ? 0 : shortest(game);
      game.undo();
      if (p > longest && p <= max_plies) {
        longest = p;
        best = c;
      }
    }
    if (best == kNoCell) {
      game.undo();
      break;
    }
    (void)game.play(best);
    plies = longest;
    lengthened = true;
  }
  if (!lengthened) return std::nullopt;
  return game;
}

// Whether `move` of the side to move starts a forced win: after it, every
// reply leaves the mover a VCF. A four's only reply that matters is its
// block (any other is met by the five); after a quiet move (a three, say)
// every reply is tried. False proves nothing: the win may need threes.
inline bool starts_a_win(VcfSolver& solver, Game game, Cell move, std::uint64_t budget) {
  const Side us = game.to_move();
  if (!game.play(move)) return false;
  if (game.over()) return game.outcome() != Outcome::draw;  // the five
  for (const Cell r : game.legal_moves()) {
    (void)game.play(r);
    const bool won =
        !game.over() && solver.find(game, us, game.variant().cells(), budget).move != kNoCell;
    game.undo();
    if (!won) return false;
  }
  return true;
}

}  // namespace inarow::tools
