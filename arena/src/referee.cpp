#include "inarow/arena/referee.h"

#include <array>
#include <exception>

namespace inarow::arena {
namespace {

using std::chrono::milliseconds;

Termination reason_of(MoveStatus s) {
  switch (s) {
    case MoveStatus::timeout:
      return Termination::timeout;
    case MoveStatus::illegal:
      return Termination::illegal;
    default:
      return Termination::crash;
  }
}

}  // namespace

std::string_view to_string(Termination t) {
  switch (t) {
    case Termination::line:
      return "line";
    case Termination::full_board:
      return "full_board";
    case Termination::timeout:
      return "timeout";
    case Termination::crash:
      return "crash";
    case Termination::illegal:
      return "illegal";
    case Termination::stopped:
      return "stopped";
  }
  return "?";
}

GameRecord play_game(const Variant& v, const Opening& opening, Player& first, Player& second,
                     const TimeLimits& tc, const std::atomic<bool>* stop) {
  const auto started = Clock::now();
  GameRecord g;
  g.variant = v.name;
  g.first_name = first.name();
  g.second_name = second.name();
  Game game(v);
  for (Cell c : opening.moves)
    if (!game.play(c)) break;  // a book from another variant: play what fits
  g.opening = game.notation();
  std::array<Player*, 2> players{&first, &second};
  std::array<milliseconds, 2> clock{tc.per_game, tc.per_game};
  bool decided = false;
  auto lose = [&](int side, Termination why, std::string detail) {
    g.result = side == 0 ? Outcome::second_wins : Outcome::first_wins;
    g.reason = why;
    g.detail = players[side]->name() + ": " + std::move(detail);
    decided = true;
  };
  for (int s = 0; s < 2 && !decided; ++s) {
    auto st = players[s]->start(game, tc);
    if (st.status != MoveStatus::ok) lose(s, reason_of(st.status), st.detail);
  }
  while (!decided && !game.over()) {
    if (stop && stop->load(std::memory_order_relaxed)) {
      g.reason = Termination::stopped;
      decided = true;
      break;
    }
    const int s = index(game.to_move());
    milliseconds allotted{0}, limit{0};
    if (tc.per_move.count() > 0) allotted = limit = tc.per_move;
    if (tc.per_game.count() > 0) {
      // Spend a share of what is left (about a twelfth) plus the increment.
      const milliseconds share = std::min(clock[s], clock[s] / 12 + tc.increment);
      allotted = allotted.count() > 0 ? std::min(allotted, share) : share;
      limit = limit.count() > 0 ? std::min(limit, clock[s]) : clock[s];
    }
    allotted = std::max(allotted, milliseconds(limit.count() > 0 ? 1 : 0));
    const auto t0 = Clock::now();
    const auto deadline = t0 + (limit.count() > 0 ? limit + tc.margin : tc.hang);
    PlayerMove m;
    try {
      m = players[s]->move(game, allotted, clock[s], deadline);
    } catch (const std::exception& e) {
      m = {kNoCell, MoveStatus::crash, std::string("exception: ") + e.what()};
    } catch (...) {
      m = {kNoCell, MoveStatus::crash, "unknown exception"};
    }
    const auto spent = std::chrono::duration_cast<milliseconds>(Clock::now() - t0);
    if (m.status != MoveStatus::ok) {
      lose(s, reason_of(m.status), m.detail);
      break;
    }
    if (limit.count() > 0 && spent > limit + tc.margin) {
      lose(s, Termination::timeout,
           "took " + std::to_string(spent.count()) + " ms of " + std::to_string(limit.count()));
      break;
    }
    if (tc.per_game.count() > 0) clock[s] = clock[s] - spent + tc.increment;
    if (!game.is_legal(m.move)) {
      lose(s, Termination::illegal, "illegal move (cell " + std::to_string(m.move) + ")");
      break;
    }
    (void)game.play(m.move);
  }
  if (!decided) {
    g.result = game.outcome();
    g.reason = g.result == Outcome::draw ? Termination::full_board : Termination::line;
  }
  for (Player* p : players)
    p->finish(game);
  g.moves = game.notation();
  g.plies = game.ply();
  g.millis = std::chrono::duration_cast<milliseconds>(Clock::now() - started).count();
  return g;
}

}  // namespace inarow::arena
