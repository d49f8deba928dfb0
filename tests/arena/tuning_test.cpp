#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <stdexcept>

#include "inarow/arena/move_order.h"
#include "inarow/arena/record.h"
#include "inarow/arena/spsa.h"
#include "inarow/arena/texel.h"
#include "inarow/engine/search.h"

namespace inarow::arena {
namespace {

TEST(Tuning, WindowTermsMatchTheEvaluatorsDefinition) {
  // Tic-tac-toe: X on the centre, O in a corner.
  auto g = Game::parse(Variant::tictactoe(), "b2a1");
  ASSERT_TRUE(g);
  Searcher s(Variant::tictactoe(), {}, 1);
  const auto t = s.eval_terms(*g);
  // X's centre lies on 4 lines, one of them (the diagonal) shared with O's
  // corner: X keeps 3 clean one-stone windows, O keeps 2 (its row and column).
  EXPECT_EQ(t.by_count, (std::vector<int>{0, 3 - 2, 0}));
  EXPECT_TRUE(t.threats.empty());
  EXPECT_TRUE(t.shapes.empty());
}

TEST(Tuning, SpsaMovesBadWeightsTowardBetterOnes) {
  // Start with threats worth less than lone stones; the defaults say 1, 6, 40.
  SpsaOptions o;
  o.variant = Variant::connect4();
  o.start.by_count = {0, 40, 6, 1};
  o.iterations = 60;
  o.depth = 2;
  o.pairs_per_iteration = 2;
  o.c_end = {4, 2, 2};
  o.r_end = {0.5, 0.5, 0.5};
  o.seed = 5;
  o.openings.count = 64;
  const auto r = run_spsa(o);
  ASSERT_EQ(r.history.size(), 61u);
  EXPECT_EQ(r.games, 60 * 4);
  const auto& end = r.history.back();
  // Three-in-a-window gains on lone stones.
  const double start_ratio = 1.0 / 40.0;
  const double end_ratio = end[2] / std::max(end[0], 1.0);
  EXPECT_GT(end_ratio, start_ratio * 2) << "w1 " << end[0] << " w2 " << end[1] << " w3 " << end[2];
  EXPECT_NE(spsa_history_csv(r).find("iteration,w1,w2,w3"), std::string::npos);
  const auto svg = spsa_history_svg(r, "test");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("polyline"), std::string::npos);
}

// What a run moves unless told: the weights the evaluation counts, the
// tempo where it is in use, the shapes only while on; the order's terms
// only when named (a game result is no fit for them).
TEST(Tuning, SpsaMovesEveryWeightInUseByDefault) {
  using Keys = std::vector<std::string>;
  EXPECT_EQ(spsa_default_keys(Weights::defaults(Variant::connect4())), (Keys{"w1", "w2", "w3"}));
  Weights g = Weights::defaults(Variant::gomoku());
  ASSERT_TRUE(g.shapes_on);
  // and the shapes, their pairs and the pairs held, on by default
  EXPECT_EQ(spsa_default_keys(g).size(), 73u);
  EXPECT_EQ(spsa_default_keys(g)[18], "double_four");
  EXPECT_EQ(spsa_default_keys(g)[36], "pair_four_four");
  EXPECT_EQ(spsa_default_keys(g).back(), "their_held_four_four");
  g.shapes_on = false;
  EXPECT_EQ(spsa_default_keys(g),
            (Keys{"w1", "w2", "w3", "w4", "four", "three", "their_four", "their_three", "tempo"}));
  g.shapes_on = true;
  g.tempo = 0;
  const Keys with_shapes = spsa_default_keys(g);
  ASSERT_EQ(with_shapes.size(), 72u);
  EXPECT_EQ(with_shapes[8], "shape_two");
  EXPECT_EQ(std::count(with_shapes.begin(), with_shapes.end(), "tempo"), 0);
}

// A run told to move the tempo and one threat term moves those and holds
// every other weight; the history names them.
TEST(Tuning, SpsaMovesTheNamedWeightsOnly) {
  SpsaOptions o;
  o.variant = Variant::gomoku();
  o.start = Weights::defaults(o.variant);
  o.start.tempo = 50;
  o.start.threats[2] = 10;
  o.keys = {"tempo", "their_four"};
  o.iterations = 6;
  o.depth = 0;
  o.nodes = 2000;
  o.pairs_per_iteration = 1;
  o.c_end = {10, 3};
  o.r_end = {1, 1};  // big steps: six iterations must move them
  o.openings = {.count = 16, .plies = 3, .depth = 1, .seed = 1};
  const auto r = run_spsa(o);
  EXPECT_EQ(r.keys, o.keys);
  EXPECT_EQ(r.games, 12);
  EXPECT_EQ(r.iterations, 6);
  ASSERT_EQ(r.history.size(), 7u);
  EXPECT_EQ(r.history[0], (std::vector<double>{50, 10}));
  Weights held = r.weights;
  held.tempo = o.start.tempo;
  held.threats[2] = o.start.threats[2];
  EXPECT_EQ(held, o.start) << r.weights.to_text();
  EXPECT_EQ(r.weights.tempo, std::lround(r.history.back()[0]));
  EXPECT_EQ(r.weights.threats[2], std::lround(r.history.back()[1]));
  EXPECT_NE(r.history.back(), r.history.front());
  EXPECT_EQ(spsa_history_csv(r).rfind("iteration,tempo,their_four\n", 0), 0u);
  EXPECT_NE(spsa_history_svg(r, "t").find("their_four: 10.0"), std::string::npos);

  // Stopped (^C), it plays no further iteration and keeps theta as it is.
  const std::atomic<bool> stopped{true};
  o.stop = &stopped;
  const auto none = run_spsa(o);
  EXPECT_EQ(none.iterations, 0);
  EXPECT_EQ(none.games, 0);
  EXPECT_EQ(none.history.size(), 1u);
  EXPECT_EQ(none.weights, o.start);
  o.stop = nullptr;

  o.keys = {"w5"};
  EXPECT_THROW(run_spsa(o), std::invalid_argument);
}

TEST(Tuning, TexelFitLowersTheError) {
  TexelOptions o;
  o.variant = Variant::connect4();
  o.start.by_count = {0, 40, 6, 1};
  o.games = 40;
  o.depth = 2;
  o.iterations = 150;
  const auto r = run_texel(o);
  EXPECT_GT(r.positions, 200);
  EXPECT_LT(r.loss_end, r.loss_start);
  EXPECT_GT(r.weights.by_count[3], r.weights.by_count[1]) << r.weights.to_text();
}

GameRecord record(const std::string& variant, const std::string& opening, const std::string& moves,
                  Outcome result, Termination reason) {
  GameRecord g;
  g.variant = variant;
  g.opening = opening;
  g.moves = moves;
  g.result = result;
  g.reason = reason;
  return g;
}

TEST(Tuning, RecordedGamesThatEndedOnTheBoardAreLabelled) {
  const Variant v = Variant::gomoku();
  const std::string text =
      record_line(record("gomoku", "h8i9", "h8i9h9i8h10i10h7i11h11", Outcome::first_wins,
                         Termination::line),
                  "t") +
      "\n\n" +
      record_line(record("gomoku", "h8", "h8i9", Outcome::second_wins, Termination::timeout), "t") +
      "\n" +
      record_line(record("connect4", "", "4444", Outcome::first_wins, Termination::line), "t") +
      "\n";
  const auto games = labelled_games(v, text);
  ASSERT_TRUE(games) << games.error().describe();
  ASSERT_EQ(games->size(), 1u);  // the timeout and the other board are left out
  EXPECT_EQ((*games)[0].moves.size(), 9u);
  EXPECT_EQ((*games)[0].skip, 2);
  EXPECT_EQ((*games)[0].result, Outcome::first_wins);

  const auto bad = labelled_games(v, text + "{\"game\": \n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("line 5"), std::string::npos) << bad.error().message;
  const auto unplayable = labelled_games(
      v, record_line(record("gomoku", "", "h8h8", Outcome::draw, Termination::line), "t"));
  ASSERT_FALSE(unplayable);
  EXPECT_NE(unplayable.error().message.find("line 1: moves"), std::string::npos)
      << unplayable.error().message;
}

// Gomoku's fit moves every term of the leaf evaluation: the window counts,
// the threat terms and the shapes, from recorded games (here a depth-1
// searcher's against itself from random three-stone openings).
TEST(Tuning, TexelFitsGomokuTermsFromRecordedGames) {
  const Variant v = Variant::gomoku();
  Weights start = Weights::defaults(v);
  start.shapes_on = true;
  std::vector<LabelledGame> games;
  Searcher bot(v, start, 4);
  for (const Opening& op : make_openings(v, {.count = 30, .plies = 3, .depth = 2, .seed = 3})) {
    Game g(v);
    for (Cell c : op.moves)
      (void)g.play(c);
    const int skip = g.ply();
    while (!g.over())
      (void)g.play(bot.search(g, Limits{.depth = 1}).best);
    games.push_back({g.moves(), g.outcome(), skip});
  }
  TexelOptions o;
  o.variant = v;
  o.start = start;
  o.recorded = games;
  o.iterations = 200;
  const auto r = run_texel(o);
  EXPECT_GT(r.positions, 300);
  EXPECT_GT(r.held_out, 20);
  EXPECT_LT(r.loss_end, r.loss_start);
  EXPECT_NE(r.weights.threats, start.threats) << r.weights.to_text();
  EXPECT_NE(r.weights.shapes, start.shapes) << r.weights.to_text();
  EXPECT_TRUE(r.weights.shapes_on);
  // With the shapes off they are not the fit's to move.
  o.start.shapes_on = false;
  const auto windows_only = run_texel(o);
  EXPECT_EQ(windows_only.weights.shapes, start.shapes);
  EXPECT_EQ(windows_only.positions, r.positions);
}

TEST(Tuning, LabelledPositionsAreReadOrNameTheLine) {
  const Variant v = Variant::gomoku();
  const auto read = labelled_positions(v, "# pbrain-rapfi, 150 ms\nh8i9h10 0.62\n\nh8 1 # won\n");
  ASSERT_TRUE(read) << read.error().describe();
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[0].moves.size(), 3u);
  EXPECT_DOUBLE_EQ((*read)[0].first_wins, 0.62);
  EXPECT_DOUBLE_EQ((*read)[1].first_wins, 1.0);
  for (const auto& [text, why] :
       {std::pair{"h8", "expected 'MOVES CHANCE'"}, std::pair{"h8 0.5 0.4", "expected"},
        std::pair{"h8 -0.1", "not a number in 0..1"}, std::pair{"h8 nan", "not a number in 0..1"},
        std::pair{"h8 half", "not a number in 0..1"}, std::pair{"h8h8 0.5", "moves:"},
        std::pair{"a1b1a2b2a3b3a4b4a5 0.5", "the game is over"}}) {
    const auto bad = labelled_positions(v, std::string("h8 0.5\n") + text + "\n");
    ASSERT_FALSE(bad) << text;
    EXPECT_EQ(bad.error().code, ErrorCode::bad_syntax);
    EXPECT_NE(bad.error().message.find("line 2"), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find(why), std::string::npos) << bad.error().message;
  }
}

// Positions labelled by another evaluation (here the built-in one with w2
// at 40 and an open three with an open two's cell at 80) pull the fit
// towards it; a term in too few positions
// keeps its weight, and the order's copies never move.
TEST(Tuning, TexelFitsLabelledPositionsAndKeepsRareTerms) {
  const Variant v = Variant::gomoku();
  const Weights start = Weights::defaults(v);
  Weights target = start;
  target.by_count[2] = 40;
  *target.find("pair_open_three_open_two") = 80;
  Searcher bot(v, start, 4);
  std::vector<LabelledPosition> positions;
  for (const Opening& op : make_openings(v, {.count = 20, .plies = 3, .depth = 2, .seed = 5})) {
    Game g(v);
    for (Cell c : op.moves)
      (void)g.play(c);
    while (!g.over()) {
      const double e = double(target.evaluate(bot.eval_terms(g)));
      positions.push_back({g.moves(), 1.0 / (1.0 + std::exp(-e / 200.0))});
      (void)g.play(bot.search(g, Limits{.depth = 1}).best);
    }
  }
  TexelOptions o;
  o.variant = v;
  o.start = start;
  o.positions = positions;
  o.iterations = 300;
  const auto r = run_texel(o);
  EXPECT_GT(r.positions, 200);
  EXPECT_GT(r.held_out, 20);
  EXPECT_LT(r.loss_end, r.loss_start / 2);
  // K is fitted to the start weights, not the labels' 200, so the scale
  // may differ: w2 against w3 goes more than halfway to the labels' ratio.
  const double from = double(start.by_count[2]) / start.by_count[3],
               to = double(target.by_count[2]) / target.by_count[3];
  const double ratio = double(r.weights.by_count[2]) / r.weights.by_count[3];
  EXPECT_GT(ratio, (from + to) / 2) << r.weights.to_text();
  const auto pair = [](const Weights& w) {
    return double(*w.find("pair_open_three_open_two")) / w.by_count[3];
  };
  EXPECT_GT(pair(r.weights), (pair(start) + pair(target)) / 2) << r.weights.to_text();
  EXPECT_TRUE(r.kept.empty());
  EXPECT_EQ(r.weights.gain_by_count, start.gain_by_count);
  EXPECT_EQ(r.weights.gain_shapes, start.gain_shapes);
  // No term is in a million positions: every weight stays.
  o.min_count = 1000000;
  const auto none = run_texel(o);
  EXPECT_EQ(none.weights, start);
  // w1..w4, the threat terms, the shapes, the pairs, the pairs held
  EXPECT_EQ(none.kept.size(), 4u + 4u + 10u + 18u + 36u);
  EXPECT_EQ(none.kept.front(), "w1");
  EXPECT_EQ(none.kept[17], "double_four");
  EXPECT_EQ(none.kept[35], "pair_four_four");
  EXPECT_EQ(none.kept.back(), "their_held_four_four");
}

// The move order against recorded games: each quiet position's played
// move counted where the order put it.
TEST(MoveOrder, CountsWhereThePlayedMovesCame) {
  const Variant v = Variant::gomoku();
  const Cell centre = v.cell(7, 7), corner = v.cell(0, 0);
  // The centre first (the one candidate, first); then a far corner (no
  // candidate at all). The second game's opening, its first ply, is skipped.
  const std::vector<LabelledGame> games = {{{centre, corner}, Outcome::draw, 0},
                                           {{centre, corner}, Outcome::draw, 1}};
  const MoveOrderReport r = measure_move_order(v, Weights::defaults(v), games);
  EXPECT_EQ(r.games, 2);
  EXPECT_EQ(r.positions, 3);
  EXPECT_EQ(r.outside, 2);
  EXPECT_EQ(r.searched, 1);
  ASSERT_EQ(r.by_rank.size(), 1u);
  EXPECT_EQ(r.by_rank[0], 1);
  EXPECT_DOUBLE_EQ(r.top(1), 1.0 / 3);
  EXPECT_DOUBLE_EQ(r.top(10), 1.0 / 3);
  EXPECT_EQ(measure_move_order(v, Weights::defaults(v), {}).top(1), 0.0);
}

// Games of a player whose quiet moves follow a known order: the windows'
// gain plus `near` for a cell next to the last stone, chosen by a softmax
// at 30 points a unit (the Gumbel trick); where the position is not quiet,
// any cell near the stones.
std::vector<LabelledGame> games_of_a_known_order(const Variant& v, int count, int near) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> uniform(1e-12, 1.0);
  Searcher terms(v, Weights::defaults(v), 1);
  std::vector<LabelledGame> games;
  for (int n = 0; n < count; ++n) {
    Game game(v);
    LabelledGame g;
    g.skip = 1;  // the centre, the one candidate
    while (!game.over() && g.moves.size() < 40) {
      const OrderTerms t = terms.order_terms(game);
      Cell best = kNoCell;
      double top = -1e300;
      for (const OrderTerms::Move& m : t.moves) {
        const double value =
            m.windows + near * m.terms[19] - 30 * std::log(-std::log(uniform(rng)));
        if (value > top) top = value, best = m.cell;
      }
      if (best == kNoCell) {  // not quiet: a cell next to any stone
        std::vector<Cell> near_any;
        for (Cell e : game.legal_moves())
          for (Cell s : g.moves)
            if (std::max(std::abs(v.col(e) - v.col(s)), std::abs(v.row(e) - v.row(s))) == 1) {
              near_any.push_back(e);
              break;
            }
        best =
            near_any.empty()
                ? v.cell(7, 7)
                : near_any[std::uniform_int_distribution<std::size_t>(0, near_any.size() - 1)(rng)];
      }
      EXPECT_TRUE(game.play(best));
      g.moves.push_back(best);
    }
    games.push_back(std::move(g));
  }
  return games;
}

TEST(MoveOrder, TheFitLearnsWhatThePlayerPrefers) {
  const Variant v = Variant::gomoku();
  const Weights start = Weights::defaults(v);
  const auto games = games_of_a_known_order(v, 200, 60);
  const auto fit = fit_move_order(v, start, games);
  ASSERT_TRUE(fit) << fit.error().describe();
  EXPECT_EQ(fit->games, 200);
  EXPECT_GT(fit->positions, 1000);
  EXPECT_GT(fit->candidates, 10 * fit->positions);
  // The player's one term, 60 for a cell next to the last stone, comes out
  // near it (1,000 choices leave it a little high: 85 here, 72 from 6,700),
  // and the terms it does not have near zero.
  const auto& keys = fit->fitted;
  EXPECT_NE(std::find(keys.begin(), keys.end(), "order_near_1"), keys.end());
  EXPECT_GE(*fit->weights.find("order_near_1"), 45);
  EXPECT_LE(*fit->weights.find("order_near_1"), 110);
  for (const char* zero : {"order_near_2", "order_near_3", "order_near_own_1", "order_near_own_2",
                           "order_two", "order_their_two"})
    EXPECT_LE(std::abs(*fit->weights.find(zero)), 15) << zero;
  EXPECT_LT(fit->loss_end, fit->loss_start);
  EXPECT_GT(fit->first_end, fit->first_start);
  // A double four is never a quiet choice: too rare to fit, it keeps its value.
  EXPECT_EQ(std::find(keys.begin(), keys.end(), "order_double_four"), keys.end());
  EXPECT_NE(std::find(fit->kept.begin(), fit->kept.end(), "order_double_four"), fit->kept.end());
  EXPECT_EQ(keys.size() + fit->kept.size(), start.order.size());
  EXPECT_EQ(*fit->weights.find("order_double_four"), *start.find("order_double_four"));
  // Everything but the order's terms stays as it was.
  Weights rest = fit->weights;
  rest.order = start.order;
  EXPECT_EQ(rest, start);
  // The optimum does not depend on where the fit starts (but for rounding).
  const auto again = fit_move_order(v, fit->weights, games);
  ASSERT_TRUE(again);
  for (std::size_t i = 0; i < start.order.size(); ++i)
    EXPECT_NEAR(again->weights.order[i], fit->weights.order[i], 1)
        << start.keys()[start.keys().size() - start.order.size() + i];
}

TEST(MoveOrder, TheFitNeedsTheShapesOn) {
  const Variant v = Variant::gomoku();
  Weights windows = Weights::defaults(v);
  windows.shapes_on = false;
  const auto games = games_of_a_known_order(v, 1, 0);
  const auto off = fit_move_order(v, windows, games);
  ASSERT_FALSE(off);
  EXPECT_EQ(off.error().code, ErrorCode::bad_weights);
  EXPECT_FALSE(fit_move_order(Variant::connect4(), Weights::defaults(Variant::connect4()), {}));
  // No games: nothing to fit, and the weights as they came.
  const auto none = fit_move_order(v, Weights::defaults(v), {});
  ASSERT_TRUE(none);
  EXPECT_EQ(none->positions, 0);
  EXPECT_EQ(none->weights, Weights::defaults(v));
}

}  // namespace
}  // namespace inarow::arena
