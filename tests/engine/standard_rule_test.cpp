// The standard rule (Variant::exact, "gomoku-standard"): only a line of
// exactly k wins; an overline (k + 1 or more) wins for nobody. Positions
// are built by hand and the answers worked out in the comments; the
// bitboard threat tests are checked against a plain cell-by-cell reading
// of their definitions on random boards.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "inarow/common/splitmix.h"
#include "inarow/engine/search.h"
#include "stones.h"
#include "threats.h"
#include "vcf.h"

namespace inarow {
namespace {

using testing::from_stones;

Cell cell(const Variant& v, const std::string& name) {
  return *Game(v).parse_move(name);
}

// Far-away second-player stones that make nothing: every other cell of the
// top row from the right, then of the third row from the top.
const std::vector<std::string> kQuiet = {"o15", "m15", "k15", "i15", "g15",
                                         "e15", "c15", "a15", "o13", "m13"};
std::vector<std::string> quiet(std::size_t n) {
  return {kQuiet.begin(), kQuiet.begin() + n};
}

TEST(StandardRule, NamesRoundTrip) {
  const Variant g = Variant::gomoku_standard();
  EXPECT_EQ(g.name, "gomoku-standard");
  EXPECT_TRUE(g.exact);
  EXPECT_EQ(g.k, 5);
  EXPECT_EQ(*Variant::parse("gomoku-standard"), g);
  EXPECT_EQ(*Variant::parse("mnk:15,15,5,exact"), g);  // the well-known name wins
  EXPECT_FALSE(Variant::gomoku().exact);
  EXPECT_NE(Variant::gomoku(), g);
  for (const char* name : {"mnk:9,9,4,exact", "mnk:8,8,4,gravity,exact", "mnk:19,19,5,exact"}) {
    const auto v = Variant::parse(name);
    ASSERT_TRUE(v) << name;
    EXPECT_EQ(v->name, name);
    EXPECT_TRUE(v->exact);
    EXPECT_EQ(*Variant::parse(v->name), *v);
  }
  EXPECT_TRUE(Variant::parse("mnk:8,8,4,gravity,exact")->gravity);
  // One spelling: the options in order, each once.
  for (const char* bad :
       {"mnk:9,9,4,exact,gravity", "mnk:9,9,4,exact,exact", "mnk:9,9,4,exactly", "mnk:9,9,4,"}) {
    const auto v = Variant::parse(bad);
    ASSERT_FALSE(v) << bad;
    EXPECT_EQ(v.error().code, ErrorCode::bad_variant) << bad;
    EXPECT_EQ(v.error().offset, 9u) << bad;
  }
}

TEST(StandardRule, SixInARowIsNoWin) {
  const Variant v = Variant::gomoku_standard();
  // x: a1 b1 c1 e1 f1, then d1 makes a1..f1, six.
  Game g = from_stones(v, {"a1", "b1", "c1", "e1", "f1", "d1"}, quiet(5));
  EXPECT_EQ(g.outcome(), Outcome::ongoing);
  EXPECT_TRUE(g.winning_line().empty());
  // Freestyle: the same six wins.
  Game f = from_stones(Variant::gomoku(), {"a1", "b1", "c1", "e1", "f1", "d1"}, quiet(5));
  EXPECT_EQ(f.outcome(), Outcome::first_wins);
  EXPECT_EQ(f.winning_line().size(), 6u);
}

TEST(StandardRule, FiveBesideAGapAndAnOwnStoneFurtherOnWins) {
  const Variant v = Variant::gomoku_standard();
  // x: b1 c1 d1 e1 g1, then a1: a1..e1 is five, f1 empty, g1 x's own.
  Game g = from_stones(v, {"b1", "c1", "d1", "e1", "g1", "a1"}, quiet(5));
  EXPECT_EQ(g.outcome(), Outcome::first_wins);
  const std::vector<Cell> line = {cell(v, "a1"), cell(v, "b1"), cell(v, "c1"), cell(v, "d1"),
                                  cell(v, "e1")};
  EXPECT_EQ(g.winning_line(), line);
}

TEST(StandardRule, AFiveThatJoinsASixIsNoWin) {
  const Variant v = Variant::gomoku_standard();
  // x: a1 b1 d1 e1 f1; c1 fills the gap: a five (b1..f1 or a1..e1) but one
  // run of six.
  Game g = from_stones(v, {"a1", "b1", "d1", "e1", "f1", "c1"}, quiet(5));
  EXPECT_EQ(g.outcome(), Outcome::ongoing);
  // The same with seven: x a1 b1 c1 e1 f1 g1, then d1.
  Game seven = from_stones(v, {"a1", "b1", "c1", "e1", "f1", "g1", "d1"}, quiet(6));
  EXPECT_EQ(seven.outcome(), Outcome::ongoing);
}

TEST(StandardRule, ExactlyFiveOnOneLineWinsBesideASixOnAnother) {
  const Variant v = Variant::gomoku_standard();
  // x: a1 b1 c1 e1 f1 (d1 makes six on row 1) and d2 d3 d4 d5 (d1 makes
  // d1..d5, exactly five on column d): the five wins.
  Game g = from_stones(v, {"a1", "b1", "c1", "e1", "f1", "d2", "d3", "d4", "d5", "d1"}, quiet(9));
  EXPECT_EQ(g.outcome(), Outcome::first_wins);
  const std::vector<Cell> line = {cell(v, "d1"), cell(v, "d2"), cell(v, "d3"), cell(v, "d4"),
                                  cell(v, "d5")};
  EXPECT_EQ(g.winning_line(), line);
}

TEST(StandardRule, WinningCellsLeaveOutOverlines) {
  const Variant v = Variant::gomoku_standard();
  // x: b1 c1 d1 e1 and g1. a1 makes a1..e1 (five, f1 empty): wins. f1 makes
  // b1..g1 (six): no win. Freestyle: both.
  const Game g = from_stones(v, {"b1", "c1", "d1", "e1", "g1"}, quiet(5));
  const Game f = from_stones(Variant::gomoku(), {"b1", "c1", "d1", "e1", "g1"}, quiet(5));
  std::visit(
      [&](const auto& pos) {
        const auto cells = pos.winning_cells(Side::first);
        EXPECT_EQ(cells.count(), 1);
        EXPECT_TRUE(cells.test(cell(v, "a1")));
        EXPECT_FALSE(pos.has_line(pos.stones(Side::first)));
      },
      g.position());
  std::visit(
      [&](const auto& pos) {
        const auto cells = pos.winning_cells(Side::first);
        EXPECT_EQ(cells.count(), 2);
        EXPECT_TRUE(cells.test(cell(v, "a1")));
        EXPECT_TRUE(cells.test(cell(v, "f1")));
      },
      f.position());
}

// x to move has an open three on row 8 (h8 i8 j8: g8 or k8 makes an open
// four). o has a1 b1 c1 d1 and f1: e1 makes a1..f1, a six. Freestyle: that
// is a win for o next move, so x must block e1. Standard: it is nothing,
// so x plays its four and wins.
TEST(StandardRule, TheSearchDoesNotBlockASix) {
  const std::vector<std::string> x = {"h8", "i8", "j8", "a15", "c15"};
  const std::vector<std::string> o = {"a1", "b1", "c1", "d1", "f1"};
  Limits limits;
  limits.depth = 6;
  {
    const Variant v = Variant::gomoku();
    Searcher s(v, Weights::defaults(v), 16);
    const auto r = s.search(from_stones(v, x, o), limits);
    EXPECT_EQ(r.best, cell(v, "e1"));
  }
  {
    const Variant v = Variant::gomoku_standard();
    Searcher s(v, Weights::defaults(v), 16);
    const auto r = s.search(from_stones(v, x, o), limits);
    EXPECT_NE(r.best, cell(v, "e1"));
    EXPECT_TRUE(r.best == cell(v, "g8") || r.best == cell(v, "k8")) << r.best;
    ASSERT_TRUE(is_mate_score(r.score)) << r.score;
    EXPECT_GT(r.score, 0);
    EXPECT_EQ(mate_plies(r.score), 3);  // the open four, a block, the five
  }
}

// x: b5 c5 d5 with o on a5 (e5 makes a four on row 5, its five cell f5),
// and e3 e4 e7 e8 (e5 and e6 fill column e to an overline). Freestyle: e5
// is a double four (f5, and e6 making e3..e8), a VCF in three plies.
// Standard: column e holds no four at all, row 5's four is blocked, and
// there is no VCF.
TEST(StandardRule, VcfDoesNotRelyOnOverlines) {
  for (const bool exact : {false, true}) {
    const Variant v = exact ? Variant::gomoku_standard() : Variant::gomoku();
    const auto geo = Geometry<4>::make(v);
    const detail::LineShape<4> shape{geo->directions, v.k, v.exact};
    Bitboard<4> own, theirs;
    for (const char* c : {"b5", "c5", "d5", "e3", "e4", "e7", "e8"})
      own.set(cell(v, c));
    theirs.set(cell(v, "a5"));
    detail::Vcf<4> vcf(shape, geo->board);
    const auto r = vcf.find(Side::first, own, theirs, 0, 20, 100000);
    if (exact) {
      EXPECT_EQ(r.plies, 0);
      EXPECT_EQ(r.move, kNoCell);
    } else {
      EXPECT_EQ(r.plies, 3);
      EXPECT_TRUE(r.move == cell(v, "e5") || r.move == cell(v, "e6")) << r.move;
    }
    const Bitboard<4> empty = geo->board & ~(own | theirs);
    // Fours: freestyle e5, e6 (column, through the overline) and f5, e5 (row);
    // standard only the row's e5 and f5.
    Bitboard<4> fours;
    for (const char* c : {"e5", "f5"})
      fours.set(cell(v, c));
    if (!exact) fours.set(cell(v, "e6"));
    EXPECT_EQ(detail::four_cells(shape, own, empty) & fours, fours);
    if (exact) {
      EXPECT_EQ(detail::four_cells(shape, own, empty), fours);
    }
    // The searcher agrees: a win for freestyle, none claimed for standard.
    Searcher s(v, Weights::defaults(v), 16);
    Limits limits;
    limits.depth = 4;
    const auto result = s.search(from_stones(v, {"b5", "c5", "d5", "e3", "e4", "e7", "e8"},
                                             {"a5", "o15", "m15", "k15", "i15", "g15", "e15"}),
                                 limits);
    EXPECT_EQ(is_mate_score(result.score) && result.score > 0, !exact) << result.score;
  }
}

// A three whose straight four would make an overline at one end is no
// three under the standard rule: x d8 e8 f8, g8 empty, h8 x. Freestyle: c8
// makes c8..f8 with b8 and g8 both fives (g8 makes c8..h8, six). Standard:
// g8 is no five there, so c8 makes only a four.
TEST(StandardRule, AThreeNextToAnOwnStoneIsNoThree) {
  for (const bool exact : {false, true}) {
    const Variant v = exact ? Variant::gomoku_standard() : Variant::gomoku();
    const auto geo = Geometry<4>::make(v);
    const detail::LineShape<4> shape{geo->directions, v.k, v.exact};
    Bitboard<4> own;
    for (const char* c : {"d8", "e8", "f8", "h8"})
      own.set(cell(v, c));
    const Bitboard<4> empty = geo->board & ~own;
    const auto t = detail::threes(shape, own, empty);
    EXPECT_EQ(t.makers.test(cell(v, "c8")), !exact);
  }
}

// The bitboard tests against their definitions read cell by cell: for
// every empty cell and direction, the run it would make (five cells) or the
// windows of k through it (four cells), with the cells just outside a
// window free of own stones.
template <int W>
struct Reference {
  const Variant& v;
  const Bitboard<W>& own;
  const Bitboard<W>& empty;
  static constexpr int kSteps[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};

  bool is_own(int c, int r) const { return v.on_board(c, r) && own.test(v.cell(c, r)); }
  bool is_empty(int c, int r) const { return v.on_board(c, r) && empty.test(v.cell(c, r)); }

  Bitboard<W> fives() const {
    Bitboard<W> out;
    for (int c = 0; c < v.width; ++c)
      for (int r = 0; r < v.height; ++r) {
        if (!is_empty(c, r)) continue;
        for (const auto& [dc, dr] : kSteps) {
          int run = 1;
          for (int i = 1; is_own(c + i * dc, r + i * dr); ++i)
            ++run;
          for (int i = 1; is_own(c - i * dc, r - i * dr); ++i)
            ++run;
          if (v.exact ? run == v.k : run >= v.k) out.set(v.cell(c, r));
        }
      }
    return out;
  }

  Bitboard<W> fours() const {
    Bitboard<W> out;
    for (int c = 0; c < v.width; ++c)
      for (int r = 0; r < v.height; ++r)
        for (const auto& [dc, dr] : kSteps) {
          // The window starting at (c, r).
          int own_n = 0, empty_n = 0;
          for (int i = 0; i < v.k; ++i) {
            own_n += is_own(c + i * dc, r + i * dr);
            empty_n += is_empty(c + i * dc, r + i * dr);
          }
          if (own_n != v.k - 2 || empty_n != 2) continue;
          if (v.exact && (is_own(c - dc, r - dr) || is_own(c + v.k * dc, r + v.k * dr))) continue;
          for (int i = 0; i < v.k; ++i)
            if (is_empty(c + i * dc, r + i * dr)) out.set(v.cell(c + i * dc, r + i * dr));
        }
    return out;
  }
};

// Five cells seen on the boards, and stones that made one where there was
// none (the cases the comparisons ran on).
struct Seen {
  int fives = 0;
  int making_fives = 0;
  bool operator==(const Seen&) const = default;
};
void PrintTo(const Seen& s, std::ostream* os) {
  *os << "{" << s.fives << ", " << s.making_fives << "}";
}

template <int W>
Seen compare_on(const Variant& v, std::uint64_t seed, int positions) {
  const auto geo = Geometry<W>::make(v);
  const detail::LineShape<W> shape{geo->directions, v.k, v.exact};
  std::uint64_t rng = seed;
  Seen seen;
  for (int n = 0; n < positions; ++n) {
    const int own_percent = 15 + static_cast<int>(splitmix64_next(rng) % 40);
    const auto [own, theirs] = testing::random_stones<W>(v, rng, own_percent);
    const Bitboard<W> empty = geo->board & ~(own | theirs);
    const Reference<W> ref{v, own, empty};
    const Bitboard<W> fives = ref.fives();
    EXPECT_EQ(detail::five_cells(shape, own, empty), fives) << v.name << " position " << n;
    EXPECT_EQ(detail::four_cells(shape, own, empty), ref.fours()) << v.name << " position " << n;
    seen.fives += fives.count();
    // Where there is no five cell, a stone on any empty cell finds the new
    // ones along its four lines as the whole board does.
    if (fives.any()) continue;
    for (int c : bits(empty)) {
      Bitboard<W> after = own;
      after.set(c);
      Bitboard<W> left = empty;
      left.reset(c);
      const auto want = detail::five_cells(shape, after, left);
      EXPECT_EQ(detail::five_cells_through(shape, after, left, c), want) << v.name << " cell " << c;
      seen.making_fives += want.any();
    }
  }
  return seen;
}

TEST(StandardRule, ThreatCellsMatchTheirDefinitions) {
  // The counts (fixed by the seeds) say the comparisons ran on five cells.
  EXPECT_EQ(compare_on<4>(Variant::gomoku_standard(), 1, 300), (Seen{3115, 384}));
  EXPECT_EQ(compare_on<4>(Variant::gomoku(), 1, 100), (Seen{1811, 84}));
  EXPECT_EQ(compare_on<2>(*Variant::parse("mnk:9,9,5,exact"), 2, 300), (Seen{884, 425}));
  EXPECT_EQ(compare_on<1>(*Variant::parse("mnk:7,7,4,exact"), 3, 300), (Seen{1028, 375}));
  EXPECT_EQ(compare_on<7>(*Variant::parse("mnk:20,20,6,exact"), 4, 100), (Seen{872, 208}));
}

// Random games end with a win only on exactly k, and the whole-board test,
// the test through the last move and the winning cells agree.
TEST(StandardRule, RandomGamesAgreeWithTheWholeBoard) {
  std::uint64_t rng = 9;
  int overlines = 0;
  for (const char* name : {"gomoku-standard", "mnk:7,7,4,exact", "mnk:6,6,3,exact",
                           "mnk:8,8,4,gravity,exact", "mnk:2,20,2,exact"}) {
    const Variant v = *Variant::parse(name);
    for (int trial = 0; trial < 60; ++trial) {
      Game game(v);
      while (!game.over()) {
        const auto moves = game.legal_moves();
        const Cell m = moves[splitmix64_next(rng) % moves.size()];
        std::visit(
            [&](const auto& pos) {
              auto own = pos.stones(pos.to_move());
              const bool predicted = pos.winning_cells(pos.to_move()).test(m);
              own.set(m);
              EXPECT_EQ(predicted, pos.has_line(own)) << name << " " << game.notation();
              EXPECT_EQ(predicted, pos.has_line_through(own, m)) << name << " " << game.notation();
            },
            game.position());
        ASSERT_TRUE(game.play(m));
      }
      // Runs longer than k on the final board (the overlines the rule let pass).
      const auto line_len = game.winning_line().size();
      if (game.outcome() != Outcome::draw) {
        EXPECT_EQ(line_len, static_cast<std::size_t>(v.k)) << name << " " << game.notation();
      }
      const Variant free =
          *Variant::parse(name == std::string("gomoku-standard")
                              ? std::string("gomoku")
                              : std::string(name).substr(0, std::string(name).rfind(',')));
      Game replay(free);
      for (Cell c : game.moves()) {
        if (replay.over()) {
          ++overlines;
          break;
        }
        ASSERT_TRUE(replay.play(c));
      }
    }
  }
  // Freestyle ended some of these games earlier: they held overlines.
  EXPECT_EQ(overlines, 39);
}

}  // namespace
}  // namespace inarow
