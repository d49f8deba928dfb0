#include "inarow/engine/search.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <utility>
#include <variant>

#include "shapes.h"
#include "threats.h"
#include "tt.h"
#include "vcf.h"
#include "windows.h"

namespace inarow {

using detail::Bound;
using detail::TranspositionTable;
using detail::TTEntry;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kMaxPly = kMaxCells + 1;
// Moves searched per node on gomoku-sized boards in heuristic search. With
// the late-move reductions alone, 8 beat 12 by +117 -82 =1 at equal nodes;
// once reverse futility and the fail-high reduction had made quiet nodes
// cheap, 10 beat 8 by +237 -163 (400 games; +120 -80 at equal time) and
// 12 against 10 was inside the noise, +103 =3 -94 (bench/gomoku/RESULTS.md).
// The ninth and later moves are reduced two plies.
constexpr int kPruneWidth = 10;
// Above depth kWidenFrom a node searches kWidenStep more moves a ply: ten
// at every depth left a fifth of a strong player's moves unsearched however
// long the search ran. At equal time (100 ms a move) this beat ten
// everywhere +1,188 =82 -1,073 over 2,343 games, +17 Elo, GSPRT(0, 10)
// accepted (bench/gomoku/RESULTS.md).
constexpr int kWidenFrom = 6;
constexpr int kWidenStep = 2;
constexpr int prune_width(int depth) {
  return kPruneWidth + kWidenStep * std::max(0, depth - kWidenFrom);
}
// Late-move reductions on gomoku-sized boards: from the fourth move on, a
// quiet move is searched a ply shallower first, from the ninth two plies.
// At equal nodes this beat the unreduced search +61 -39.
constexpr int kReduceFrom = 3;
constexpr int kReduceMoreFrom = 8;
// Reverse futility pruning on gomoku-sized boards (see negamax): the
// margin a ply, and the deepest node it applies to. 60 a ply up to depth 4
// beat no pruning +231 =3 -166 at equal nodes (400 games), +155 =2 -143 at
// equal time (300); 120 a ply and depth 8 did no better. Its mirror,
// razoring, is below.
constexpr Score kFutilityMargin = 60;
constexpr int kFutilityDepth = 4;
// Fail-high reduction on gomoku-sized boards (see negamax): a quiet node
// off the principal variation whose static score beats beta by this much a
// ply searches its quiet moves a ply shallower. 15 a ply beat none by
// +336 -264 at equal nodes (600 games), +208 =2 -190 at equal time (400);
// 30 a ply did no better than none.
constexpr Score kFailHighMargin = 15;
// Razoring on gomoku-sized boards (see negamax), with Rapfi's margins: a
// quiet node off the principal variation, of depth kRazorDepth or less,
// whose static score falls short of alpha by more than kRazorMargin a ply
// plus kRazorBase goes to the leaf: the VCF dive, then the static score.
// At equal time it beat no razoring +1092 =55 -994 (2,141 games, +16 Elo,
// GSPRT(0, 10) accepted); the 60 a ply tried before, at equal nodes,
// showed nothing in 200 (bench/gomoku/RESULTS.md).
constexpr int kRazorDepth = 2;
constexpr Score kRazorMargin = 14;
constexpr Score kRazorBase = 19;
// VCF limits: at the root (our win, and the opponent's against each reply)
// and as a dive at the main search's leaves. The root's solver is fast
// (200,000 nodes in about 12 ms) and a VCF it misses the main search may
// never find: 20,000 left 3 of the tactics suite's 48 unsolved.
constexpr int kRootVcfPlies = 40;
constexpr std::uint64_t kRootVcfNodes = 200000;
constexpr std::uint64_t kDefenceVcfNodes = 4000;
// VCT (fours and threes) at the root, ours and the opponent's.
constexpr int kRootVctPlies = 15;
constexpr std::uint64_t kRootVctNodes = 10000;
constexpr int kLeafVcfPlies = 16;
constexpr std::uint64_t kLeafVcfNodes = 40;
// Forced replies are searched without losing depth up to this ply.
constexpr int kMaxExtendedPly = 40;
// Aspiration windows on gomoku-sized boards (see iterate): from the fourth
// iteration on, 30 either side of the last score, then 60, 120 and no
// limit on the side that fails. Against full windows at 300,000 nodes a
// move: +458 =27 -367 over 852 games, +37 +- 20 Elo, GSPRT(0, 10) accepted;
// at equal time (100 ms a move), +403 =22 -325 over 750 games, +36 +- 20,
// accepted too (bench/gomoku/RESULTS.md). Not measured on the smaller
// boards, which keep full windows.
constexpr int kAspirationFrom = 4;
constexpr Score kAspirationDelta = 30;
constexpr int kAspirationWidenings = 2;

// A move list on the stack, with an ordering score per move. On one-word
// boards it also keeps, per move, the mover's winning cells after it: the
// child needs exactly that set and need not compute it again.
template <int W>
struct MoveList {
  static constexpr int kCapacity = 64 * W;
  // Plain arrays, left uninitialised: a node fills only what it uses.
  std::uint16_t move[kCapacity];
  int score[kCapacity];
  std::array<std::uint64_t, W> lines[W == 1 ? kCapacity : 1];  // raw: Bitboard zero-fills
  int size = 0;

  MoveList() {}  // NOLINT: deliberately no member initialisation

  void add(int m, int s) {
    move[size] = static_cast<std::uint16_t>(m);
    score[size++] = s;
  }
  // Selection sort step: bring the best remaining move to position i.
  int pick(int i) {
    int best = i;
    for (int j = i + 1; j < size; ++j)
      if (score[j] > score[best]) best = j;
    std::swap(move[i], move[best]);
    std::swap(score[i], score[best]);
    if constexpr (W == 1) std::swap(lines[i], lines[best]);
    return move[i];
  }
};

// The search on boards of W words. One per Searcher, re-seated on each call.
template <int W>
class Core {
 public:
  using Board = Bitboard<W>;

  Core(const Variant& v, const Weights& weights, TranspositionTable& tt)
      : geo_(Geometry<W>::make(v)),
        pos_(geo_),
        tt_(tt),
        windows_(v),
        eval_(windows_, weights),
        shape_{geo_->directions, v.k, v.exact},
        vcf_(shape_, geo_->board) {
    // Centre-first: cells nearer the middle order first among equals.
    for (int c = 0; c < v.width; ++c)
      for (int r = 0; r < v.height; ++r) {
        // Under gravity the row follows from the column: only the column counts.
        const int dc = 2 * c - (v.width - 1), dr = v.gravity ? 0 : 2 * r - (v.height - 1);
        centre_[v.cell(c, r)] = -(std::abs(dc) + std::abs(dr));
        col_[v.cell(c, r)] = std::int8_t(c);
        row_[v.cell(c, r)] = std::int8_t(r);
      }
    neighbourhood_ = !v.gravity && v.cells() > 49;
    threat_rules_ = neighbourhood_ && v.k >= 5;
    set_weights(weights);
  }

  void set_weights(const Weights& w) {
    eval_.set_weights(w);
    use_shapes_ = w.shapes_on && detail::shapes_fit(geo_->variant);
    if (use_shapes_) {
      if (!shapes_) shapes_.emplace(geo_->variant);
      shapes_->set_weights(w);
    }
    near_ = {};
    order_shape_gain_ = 0;
    if (use_shapes_ && w.order.size() == std::size_t(detail::kOrderTerms)) {
      order_shape_gain_ = w.order[detail::kOrderShapeGain];
      for (int d = 1; d <= detail::kOrderNearSteps; ++d)
        near_[0][d] = w.order[detail::kOrderNear + d - 1];
      for (int d = 1; d <= detail::kOrderNearOwnSteps; ++d)
        near_[1][d] = w.order[detail::kOrderNearOwn + d - 1];
    }
    threat_weights_.fill(0);
    for (std::size_t i = 0; i < w.threats.size() && i < threat_weights_.size(); ++i)
      threat_weights_[i] = w.threats[i];
    tempo_ = w.tempo;
    // order() may leave the window gains out while the table's move stays
    // above every other score whatever they are: weights within the range
    // Weights::parse accepts (see there).
    gains_can_wait_ = std::all_of(w.by_count.begin(), w.by_count.end(),
                                  [](int x) { return x >= -10000 && x <= 10000; });
  }
  void clear_history() {
    for (auto& h : history_)
      h.fill(0);
    for (auto& k : killers_)
      k = {-1, -1};
    vcf_.clear();
  }

  SearchResult search(const Game& game, const Limits& limits,
                      const std::function<void(const SearchInfo&)>& on_iteration);
  EvalTerms eval_terms(const Game& game);
  MoveRank move_rank(const Game& game, Cell move);
  OrderTerms order_terms(const Game& game);
  // A quiet position's candidates (MoveRank::quiet) and the two sets the
  // order puts first, as an interior node has them; none when not quiet.
  struct QuietMoves {
    Board moves, sharp, fours;
  };
  std::optional<QuietMoves> quiet_moves(const Game& game);
  Score stand_pat(const Game& game);
  std::vector<MoveScore> score_moves(const Game& game, const Limits& limits);
  Solution solve(const Game& game, bool weak, const std::atomic<bool>* stop);

 private:
  void seat(const Game& game, const Limits& limits, bool use_eval);
  // The side to move must not have a win on the spot (the parent's move
  // filter guarantees it; the roots check it first). `their_lines`, when
  // given, is the opponent's set of winning cells.
  Score negamax(int depth, Score alpha, Score beta, int ply, const Board* their_lines = nullptr);
  Score iterate(int depth, Score last);
  // A win on the spot for the side to move at the root, or kNoCell.
  Cell immediate_win() const {
    const Board wins = pos_.winning_cells(pos_.to_move()) & pos_.playable();
    return wins.any() ? wins.lowest() : kNoCell;
  }
  Score evaluate() const {
    sync_eval();
    const Score first = use_shapes_ ? std::clamp(eval_.score_first() + shapes_->score_first(),
                                                 -kMaxEval + 1, kMaxEval - 1)
                                    : eval_.score_first();
    const Side us = pos_.to_move();
    const Score s =
        (us == Side::first ? first : -first) + (use_shapes_ ? shapes_->held_score(us) : 0);
    if (!tempo_) return std::clamp(s, -kMaxEval + 1, kMaxEval - 1);
    // The side to move's own windows, weighed again (Weights::tempo).
    return std::clamp(s + eval_.side_sum(us) * tempo_ / 100, -kMaxEval + 1, kMaxEval - 1);
  }
  // What a leaf stands pat on: the evaluation plus its threat terms.
  Score stand_pat_score(int threat_score) const {
    return std::clamp(evaluate() + threat_score, -kMaxEval + 1, kMaxEval - 1);
  }
  // The evaluation (the windows, which score and order moves, and the
  // shapes, which add to both) follows the position lazily: a move enters it
  // only when something reads it (evaluate(), the order's gains). A node
  // that ends before that (a table cutoff, a VCF found at a leaf, a reply
  // to a five threat that passes the move on) costs it nothing, on make or
  // on undo. The first `synced_` moves of the position are in it.
  void make(int m) { pos_.make_nonwinning(m); }
  void undo() {
    const int m = pos_.last_move();
    pos_.undo();
    if (synced_ > pos_.ply()) {
      --synced_;
      eval_.remove(m, pos_.to_move());
      if (use_shapes_) shapes_->remove(m, pos_.to_move());
    }
  }
  void sync_eval() const {
    if (!use_eval_) return;
    const auto moves = pos_.moves();
    for (; synced_ < int(moves.size()); ++synced_) {
      const Side mover = static_cast<Side>(synced_ & 1);  // as EvalState::reset
      eval_.add(moves[std::size_t(synced_)], mover);
      if (use_shapes_) shapes_->add(moves[std::size_t(synced_)], mover);
    }
  }
  // The leaves' threat terms for the side to move (Weights::threats): the
  // cells where it makes a four or a straight four, and the opponent's.
  static std::array<int, 4> threat_terms(const detail::SideThreats<W>& ours,
                                         const detail::SideThreats<W>& theirs) {
    return {ours.fours.count(), ours.threes.makers.count(), -theirs.fours.count(),
            -theirs.threes.makers.count()};
  }
  int weigh_threats(const std::array<int, 4>& t) const {
    return threat_weights_[0] * t[0] + threat_weights_[1] * t[1] + threat_weights_[2] * t[2] +
           threat_weights_[3] * t[3];
  }
  bool out_of_budget() {
    if (aborted_) return true;
    // Every 1024 nodes (VCF dives add theirs in one go).
    if (nodes_ < next_check_) return false;
    next_check_ = nodes_ + 1024 - (nodes_ & 1023);
    if ((stop_ && stop_->load(std::memory_order_relaxed)) ||
        (node_limit_ && nodes_ >= node_limit_) || (deadline_ && Clock::now() >= *deadline_))
      aborted_ = true;
    return aborted_;
  }
  Board candidates(const Board& playable) const;
  // `sharp`: cells that make or stop a straight four; `fours`: the four
  // cells that go first (ordered_fours). Both go before quiet moves. Returns true
  // when the window gains are left out (see there): add_gains then adds
  // them before a second move is picked.
  bool order(MoveList<W>& list, const Board& moves, int tt_move, int ply, const Board& sharp,
             const Board& fours) const;
  // The four cells that go before the quiet moves: where the order has
  // terms for them (shapes on: order_four, order_their_four), the mover's
  // own, its forcing moves; elsewhere the opponent's too.
  Board ordered_fours(const Board& ours, const Board& theirs) const {
    return use_shapes_ ? ours : ours | theirs;
  }
  void add_gains(MoveList<W>& list) const {
    for (int j = 1; j < list.size; ++j)
      list.score[j] += order_gain(list.move[j], pos_.to_move()) << 8;
  }
  // What a move is worth to the order: the windows' gain, and where shapes
  // are on, the terms of Weights::order (OrderTerms has them one by one).
  int order_gain(int m, Side us) const {
    sync_eval();
    const int windows = eval_.gain(m, us);
    if (!use_shapes_) return windows;
    int g = windows + shapes_->gain(m, us) * order_shape_gain_ / 100 + shapes_->order_value(m, us);
    const auto moves = pos_.moves();
    for (std::size_t i = 0; i < 2 && i < moves.size(); ++i)
      if (const int d = steps(m, moves[moves.size() - 1 - i]); d < int(near_[i].size()))
        g += near_[i][d];
    return g;
  }
  int steps(int a, int b) const {  // king steps between two cells
    return std::max(std::abs(col_[a] - col_[b]), std::abs(row_[a] - row_[b]));
  }
  std::vector<Cell> principal_variation(int max_len);
  Board empty_cells() const { return geo_->board & ~pos_.occupied(); }
  // A VCF for the side to move, or (as if it could move now) for its opponent.
  // With `threes`, a VCT: victory by continuous threats (fours and threes).
  // `known`: what the caller already worked out about the attacker's root.
  typename detail::Vcf<W>::Result vcf(bool for_opponent, int plies, std::uint64_t budget,
                                      bool threes = false,
                                      const typename detail::Vcf<W>::Known* known = nullptr) {
    const Side a = for_opponent ? opponent(pos_.to_move()) : pos_.to_move();
    if (node_limit_) budget = std::min(budget, node_limit_ > nodes_ ? node_limit_ - nodes_ : 1);
    auto r = vcf_.find(a, pos_.stones(a), pos_.stones(opponent(a)), pos_.key(), plies, budget,
                       threes, known);
    nodes_ += vcf_.nodes();
    return r;
  }
  // A root forcing search's budget: under a node limit, a share of it at
  // most, so that the four of them leave the main search at least 3/8 (a
  // bot of 150,000 nodes used to spend them all on a VCT it did not find,
  // and then played a move no iteration had looked at). Our own VCF, a win
  // outright, may take a quarter, the other three an eighth each: at
  // 100,000 nodes an eighth left a 25-ply VCF of the tactics suite (18,490
  // solver nodes) to the main search, which missed it.
  std::uint64_t root_share(std::uint64_t budget, std::uint64_t divisor = 8) const {
    return node_limit_ ? std::min(budget, std::max<std::uint64_t>(node_limit_ / divisor, 1))
                       : budget;
  }
  // Root moves that leave the opponent no VCF (or VCT), when it has one now.
  Board refutations_of_opponent_threats(bool threes);
  int empties() const { return geo_->variant.cells() - pos_.ply(); }

  std::shared_ptr<const Geometry<W>> geo_;
  Position<W> pos_;
  TranspositionTable& tt_;
  detail::WindowTable windows_;
  mutable detail::EvalState eval_;
  mutable std::optional<detail::ShapeState> shapes_;  // built when the weights ask for shapes
  mutable int synced_ = 0;  // the position's moves in eval_ and shapes_ (make())
  bool use_shapes_ = false;
  std::array<int, kMaxCells> centre_{};
  std::array<std::int8_t, kMaxCells> col_{}, row_{};  // a cell's column and row
  // Weights::order's nearness terms by king steps: [0] to the last move,
  // [1] to the mover's own last (zero past the last step each has).
  std::array<std::array<int, detail::kOrderNearSteps + 1>, 2> near_{};
  int order_shape_gain_ = 0;  // percent
  std::array<std::array<int, kMaxCells>, 2> history_{};
  std::array<std::array<int, 2>, kMaxPly> killers_{};
  bool neighbourhood_ = false;
  bool threat_rules_ = false;  // k >= 5 without gravity: fours and threes force replies
  detail::LineShape<W> shape_;
  detail::Vcf<W> vcf_;
  // Leaf terms on top of the window score (Weights::threats), per cell:
  // where the side to move makes a four, a straight four; the opponent's.
  std::array<int, 4> threat_weights_{};
  int tempo_ = 0;  // percent (Weights::tempo)
  bool gains_can_wait_ = true;
  // The root's forcing analysis (our VCF/VCT, the refutations of theirs).
  // Off for score_moves' child searches: run once per candidate it cost
  // seconds a move, and the children's leaves dive for VCFs all the same.
  bool root_analysis_ = true;
  Board root_moves_;      // when not empty, the root searches only these
  int root_choices_ = 0;  // moves the root had to choose from

  // Per search.
  bool use_eval_ = true;
  bool aborted_ = false;
  std::uint64_t nodes_ = 0;
  std::uint64_t next_check_ = 0;
  std::uint64_t node_limit_ = 0;
  const std::atomic<bool>* stop_ = nullptr;
  std::optional<Clock::time_point> deadline_;
  bool use_all_time_ = false;  // Limits::use_all_time
  int root_best_ = kNoCell;
  int root_raised_ = kNoCell;  // the last root move that beat the first (the table's)
};

template <int W>
void Core<W>::seat(const Game& game, const Limits& limits, bool use_eval) {
  pos_ = Position<W>(geo_);
  for (Cell m : game.moves())
    pos_.make_nonwinning(m);  // the game is not over
  use_eval_ = use_eval;
  synced_ = 0;
  if (use_eval_) {
    eval_.reset(pos_.moves());
    if (use_shapes_) shapes_->reset(geo_->variant, pos_.moves());
    synced_ = pos_.ply();
  }
  aborted_ = false;
  nodes_ = 0;
  next_check_ = 0;
  node_limit_ = limits.nodes;
  stop_ = limits.stop;
  deadline_.reset();
  if (limits.time.count() > 0) deadline_ = Clock::now() + limits.time;
  use_all_time_ = limits.use_all_time;
  root_best_ = kNoCell;
  root_moves_ = Board{};
}

// Gomoku-sized boards: only cells within two steps of a stone are worth trying.
template <int W>
typename Core<W>::Board Core<W>::candidates(const Board& playable) const {
  if (!neighbourhood_) return playable;
  const Board occ = pos_.occupied();
  if (occ.none()) {  // the first stone goes in the middle
    const Variant& v = geo_->variant;
    return Board::bit(v.cell(v.width / 2, v.height / 2));
  }
  // Shifts of less than a word: Lanes does them in vector registers.
  using L = detail::Lanes<W>;
  const L stones = L::of(occ);
  L near = stones;
  for (int d : geo_->directions)
    near |= stones.up(d) | stones.down(d) | stones.up(2 * d) | stones.down(2 * d);
  return near.board() & playable;
}

template <int W>
bool Core<W>::order(MoveList<W>& list, const Board& moves, int tt_move, int ply, const Board& sharp,
                    const Board& fours) const {
  const Side us = pos_.to_move();
  const Board own = pos_.stones(us);
  const auto& killers = killers_[ply];
  const std::uint64_t key = pos_.key();
  if constexpr (W > 1) {
    // A lone move (a forced block) needs no score: it goes first anyway.
    if (moves.count() == 1) {
      const int m = moves.lowest();
      tt_.prefetch(key ^ zobrist(us, m));
      list.add(m, 0);
      return false;
    }
  }
  // The children's TT slots ahead of time, where every child is searched.
  // Not on gomoku-sized boards: of some 40 moves at most 12 are searched
  // (most nodes cut off after one), and each prefetch of a cold slot
  // stalls on its page walk (measured: a tenth of the search's time).
  const bool prefetch = !neighbourhood_;
  // The table's move goes first whatever the others score: 1 << 30 is more
  // than all the terms below can add up to (with weights within
  // -10000..10000 a gain is under 4k * 21000 + 8 * 10000, k <= 20, times
  // 2^8, and history/64 is under 2^25). Most nodes then cut off on it, so
  // the window gains, the costly term, wait until a second move is wanted.
  // Nothing a child does changes them: the window counts are as they were
  // once it is undone (history and killers do change, so those go in now).
  const bool defer_gains = W > 1 && use_eval_ && tt_move != kNoCell && gains_can_wait_;
  for (int m : bits(moves)) {
    if (prefetch) tt_.prefetch(key ^ zobrist(us, m));  // the child will probe there
    int s = centre_[m];
    // Killers and history help the heuristic search; in an exact solve's
    // null-window probes they measured worse than plain threats-then-centre.
    if (use_eval_) {
      s += history_[index(us)][m] / 64;
      if (m == killers[0] || m == killers[1]) s += 1 << 20;
      if (sharp.test(m)) s += 1 << 22;
      if (fours.test(m)) s += 1 << 21;
    }
    if constexpr (W == 1) {
      // Threat-first (Pons): moves that leave us more winning cells first.
      Board after = own;
      after.set(m);
      const Board lines = pos_.winning_cells(after);
      list.lines[list.size] = lines.w;
      s += (lines & ~Board::bit(m)).count() << 22;
    } else if (use_eval_ && !defer_gains) {
      s += order_gain(m, us) << 8;
    }
    if (m == tt_move) s = 1 << 30;
    list.add(m, s);
  }
  return defer_gains;
}

template <int W>
Score Core<W>::negamax(int depth, Score alpha, Score beta, int ply, const Board* their_lines_hint) {
  ++nodes_;
  if (out_of_budget()) return 0;
  const std::uint64_t key = pos_.key();
  // The line tests below hide the memory latency. Leaves probe the table
  // only when they go on to answer a threat: they prefetch then (below).
  if (depth > 0) tt_.prefetch(key);

  const Side them = opponent(pos_.to_move());
  const Board playable = pos_.open_cells();
  assert((pos_.winning_cells(pos_.to_move()) & playable).none());

  // The opponent's open threats: one must be blocked, two cannot be.
  const Board their_lines = their_lines_hint ? *their_lines_hint : pos_.winning_cells(them);
  const Board threats = their_lines & playable;
  Board moves = threats.any() ? threats : candidates(playable);
  bool forced = threats.any();
  int threat_score = 0;  // the leaves' threat terms, for the side to move
  Board sharp, forcing_cells, first_fours;  // forcing: either side's four cells
  Board plain_defence = threats;  // the replies to a threat that are not counter-fours
  Board our_four_cells;           // where we make a four (threat rules, no five cell of theirs)
  if (!forced && threat_rules_) {
    const Side us = pos_.to_move();
    const Board empty = empty_cells();
    // Our three while they have no four to interrupt with: a straight four
    // next, then a five.
    const auto [ours, theirs] =
        detail::line_threats(shape_, pos_.stones(us), pos_.stones(them), empty);
    const Board& their_fours = theirs.fours;
    const auto& our_threes = ours.threes;
    if (our_threes.makers.any() && their_fours.none()) {
      if (ply == 0) root_best_ = our_threes.makers.lowest();
      return kMate - ply - 3;
    }
    // An opponent's three (a move away from a straight four, which wins)
    // leaves two kinds of move: spoil every such window at once, or make a
    // four, which the opponent must answer first. Anything else loses.
    const Board& our_fours = ours.fours;
    our_four_cells = our_fours;
    const auto& three = theirs.threes;
    threat_score = weigh_threats(threat_terms(ours, theirs));
    sharp = our_threes.makers | three.any;
    forcing_cells = our_fours | their_fours;
    first_fours = ordered_fours(our_fours, their_fours);
    if (three.makers.any()) {
      forced = true;
      moves = (three.defence | our_fours) & playable;
      plain_defence = three.defence & playable;
      if (moves.none()) {
        if (ply == 0) root_best_ = three.makers.lowest();
        return -(kMate - ply - 4);
      }
    }
  }
  if (ply == 0) {
    if (root_moves_.any() && (moves & root_moves_).any()) moves &= root_moves_;
    root_choices_ = moves.count();
  }
  // Under gravity, a stone right below the opponent's winning cell hands it over.
  if (geo_->variant.gravity) moves &= ~(their_lines >> 1);
  if (moves.none() || threats.count() > 1) {
    if (ply == 0) root_best_ = (threats.any() ? threats : playable).lowest();
    return -(kMate - ply - 2);
  }
  // Neither side can win on its next move: with two cells left, it is a draw.
  if (empties() <= 2) {
    if (ply == 0) root_best_ = moves.lowest();
    return 0;
  }

  // Mate-distance bounds: we cannot win before our next-but-one move, and we
  // lose no sooner than the opponent's next-but-one.
  const Score worst = -(kMate - ply - 4), best_possible = kMate - ply - 3;
  if (worst >= beta) return worst;
  if (best_possible <= alpha) return best_possible;
  alpha = std::max(alpha, worst);
  beta = std::min(beta, best_possible);

  // A quiet node (no threat to answer) off the principal variation whose
  // static score beats beta by a margin a ply: near the horizon, by a wide
  // one, it stands pat (reverse futility); otherwise, by a narrow one, its
  // quiet moves are searched a ply shallower (fail-high reduction): a
  // cutoff is the likely outcome, and the forcing moves, searched in full,
  // are what could overturn it. Just above the horizon, one whose static
  // score is far under alpha is a leaf (razoring): only a VCF could lift
  // it. Gomoku-sized boards, heuristic search only.
  // Where the table holds a score for this node (a search of any depth:
  // the table's cutoffs come below), and its bound lies past the static
  // score on the bound's own side, that score stands in for the static
  // one in all three: a search has looked where the evaluation only
  // counts shapes (Rapfi and Stockfish do the same). At equal time it
  // beat the static score alone +1,732 =101 -1,619 over 3,452 games,
  // +11 +- 10 Elo (bench/gomoku/RESULTS.md).
  // A node above the horizon reads its table entry here; the horizon's
  // answer reads it after the dive below, which hides the latency.
  TTEntry entry = depth > 0 ? tt_.probe(key, ply) : TTEntry{};
  bool likely_fail_high = false;
  if (threat_rules_ && use_eval_ && !forced && ply > 0 && depth > 0 && beta - alpha == 1 &&
      std::abs(beta) < kMaxEval) {
    Score stand = stand_pat_score(threat_score);
    if (entry.bound != Bound::none && std::abs(entry.score) < kMaxEval &&
        (entry.bound == Bound::exact || (entry.bound == Bound::lower) == (entry.score > stand)))
      stand = entry.score;
    if (depth <= kFutilityDepth && stand - kFutilityMargin * depth >= beta) return stand;
    likely_fail_high = depth >= 2 && stand >= beta + kFailHighMargin * depth;
    if (depth <= kRazorDepth && stand + kRazorMargin * depth + kRazorBase < alpha) depth = 0;
  }
  // Set when this node is the horizon answering a threat: its replies are
  // searched to depth 0, never extended (below).
  bool horizon_answer = false;
  if (depth <= 0) {
    // Not quiet while the opponent threatens a five or a straight four:
    // answer it (blocks only, no counter-fours) before standing pat.
    const bool answer =
        threat_rules_ && use_eval_ && forced && plain_defence.any() && ply < kMaxExtendedPly;
    if (answer) tt_.prefetch(key);  // the dive below hides the latency
    // Quiescence, gomoku style: a short VCF dive sees the fours the
    // horizon hides.
    if (threat_rules_ && use_eval_) {
      // We have no five cell (see above); theirs and our fours are known.
      const typename detail::Vcf<W>::Known known{
          .their_fives = threats, .own_fours = threats.any() ? nullptr : &our_four_cells};
      const auto r = vcf(false, kLeafVcfPlies, kLeafVcfNodes, false, &known);
      if (r.move != kNoCell) return kMate - ply - r.plies;
    }
    if (!answer) return stand_pat_score(threat_score);
    moves = plain_defence;
    depth = 1;
    horizon_answer = true;
  }

  // The depth the table records: the horizon's answer searches only the
  // blocks, never extended, so it is worth less than a depth-1 node and
  // goes in as depth 0 (a depth-1 entry, worth more, still answers it).
  const int draft = horizon_answer ? 0 : depth;
  if (horizon_answer) entry = tt_.probe(key, ply);
  int tt_move = kNoCell;
  if (entry.bound != Bound::none) {
    tt_move = entry.move == 0xFFFF ? kNoCell : entry.move;
    if (entry.depth >= draft && ply > 0) {
      const Score s = entry.score;
      if (entry.bound == Bound::exact) return s;
      if (entry.bound == Bound::lower && s >= beta) return s;
      if (entry.bound == Bound::upper && s <= alpha) return s;
    }
    if (tt_move != kNoCell && !moves.test(tt_move)) tt_move = kNoCell;
  }

  MoveList<W> list;
  bool gains_left = order(list, moves, tt_move, ply, sharp, first_fours);

  const Score alpha_orig = alpha;
  Score best = -kInfinity;
  int best_move = kNoCell;
  // Big open boards: beyond the root, only the most promising moves are worth
  // a look, more of them the deeper the node's search (forward pruning; never
  // while solving, never when forced).
  const int width =
      neighbourhood_ && use_eval_ && ply > 0 && !forced ? prune_width(depth) : list.size;
  // Late-move reductions where the forward prune applies, and never to a
  // move that makes or stops a four or a straight four, nor to a killer.
  const bool reduce = neighbourhood_ && use_eval_ && !forced;
  // A lone reply (a four blocked) costs no depth: otherwise a string of
  // fours pushes what follows them past the horizon. Gomoku-sized boards,
  // heuristic search only, and only up to ply kMaxExtendedPly. Not the
  // horizon's answer: extended, it handed the four's maker another
  // full-width ply after every block, each four to make one more, and a
  // depth-2 search on a board thick with fours ran to 134,646 nodes.
  const int next =
      depth - 1 +
      (threat_rules_ && use_eval_ && list.size == 1 && ply < kMaxExtendedPly && !horizon_answer);
  for (int i = 0; i < std::min(width, list.size); ++i) {
    if (gains_left && i == 1) {
      add_gains(list);  // the table's move, now first, did not cut off
      gains_left = false;
    }
    const int m = list.pick(i);
    const bool quiet = !sharp.test(m) && !forcing_cells.test(m);
    const int depth_m = next - (likely_fail_high && quiet);
    const Board* child_lines = nullptr;
    Board lines;
    if constexpr (W == 1) {
      lines.w = list.lines[i];
      child_lines = &lines;
    }
    make(m);
    if constexpr (W > 1) {
      // We had no five cell before m (see the assert above), so ours now
      // run through m: four lines walked instead of the whole board shifted
      // in the child. Under gravity an empty cell may be a five cell that
      // is not playable yet, so there the child looks for itself.
      // Where our four cells are known (threat rules, no five cell of
      // theirs), a move off them makes no five cell at all.
      if (!geo_->variant.gravity) {
        if (threat_rules_ && threats.none() && !our_four_cells.test(m))
          lines = Board{};
        else
          lines = detail::five_cells_through(shape_, pos_.stones(opponent(pos_.to_move())),
                                             empty_cells(), m);
        child_lines = &lines;
      }
    }
    Score score;
    if (i == 0) {
      score = -negamax(depth_m, -beta, -alpha, ply + 1, child_lines);
    } else {
      // Late moves, quiet ones, are searched shallower first: the ordering
      // put them late because they are unlikely to be best. One that proves
      // better than alpha is searched again at full depth.
      int r = 0;
      if (reduce && i >= kReduceFrom && depth_m >= 2 && quiet && m != killers_[ply][0] &&
          m != killers_[ply][1])
        r = std::min(depth_m - 1, 1 + (i >= kReduceMoreFrom));
      // Principal variation search: prove the rest worse with a null window.
      score = -negamax(depth_m - r, -alpha - 1, -alpha, ply + 1, child_lines);
      if (r && score > alpha) score = -negamax(depth_m, -alpha - 1, -alpha, ply + 1, child_lines);
      if (score > alpha && score < beta)
        score = -negamax(depth_m, -beta, -alpha, ply + 1, child_lines);
    }
    undo();
    if (aborted_) return 0;
    if (score > best) {
      best = score;
      best_move = m;
      if (ply == 0) root_best_ = m;
      if (score > alpha) {
        if (ply == 0 && i > 0) root_raised_ = m;
        alpha = score;
        if (alpha >= beta) {
          auto& k = killers_[ply];
          if (k[0] != m) k = {m, k[0]};
          history_[index(pos_.to_move())][m] += depth * depth;
          break;
        }
      }
    }
  }

  const Bound bound = best >= beta         ? Bound::lower
                      : best <= alpha_orig ? Bound::upper
                                           : Bound::exact;
  tt_.store(key, ply, best, draft, bound, best_move);
  return best;
}

// One iteration from the root. On gomoku-sized boards it first searches a
// narrow window around the last iteration's score: most iterations land
// inside it, and a narrow window cuts off sooner. A score on or past an
// edge is only a bound, so that side is widened and the iteration searched
// again (the table keeps what the narrower search learnt). `last` is the
// last iteration's score; a mate score gets the full window.
template <int W>
Score Core<W>::iterate(int depth, Score last) {
  if (!threat_rules_ || depth < kAspirationFrom || is_mate_score(last))
    return negamax(depth, -kInfinity, kInfinity, 0);
  // Each failure doubles the margin; past kAspirationWidenings doublings
  // the failing side has no limit.
  Score delta = kAspirationDelta;
  auto edge = [&](int sign) {
    return delta > kAspirationDelta << kAspirationWidenings ? sign * kInfinity
                                                            : last + sign * delta;
  };
  Score alpha = edge(-1), beta = edge(1);
  for (;;) {
    const Score score = negamax(depth, alpha, beta, 0);
    if (aborted_) return score;
    if (score <= alpha && alpha > -kInfinity) {
      delta *= 2;
      alpha = edge(-1);
    } else if (score >= beta && beta < kInfinity) {
      delta *= 2;
      beta = edge(1);
    } else {
      return score;
    }
  }
}

template <int W>
std::vector<Cell> Core<W>::principal_variation(int max_len) {
  std::vector<Cell> pv;
  int made = 0;
  while (made < max_len && !pos_.over()) {
    const TTEntry e = tt_.probe(pos_.key(), 0);
    if (e.bound == Bound::none || e.move == 0xFFFF || !pos_.is_legal(e.move)) break;
    pv.push_back(e.move);
    pos_.make(e.move);
    ++made;
  }
  while (made--)
    pos_.undo();
  return pv;
}

template <int W>
SearchResult Core<W>::search(const Game& game, const Limits& limits,
                             const std::function<void(const SearchInfo&)>& on_iteration) {
  const auto start = Clock::now();
  seat(game, limits, true);
  SearchResult result;
  if (const Cell win = immediate_win(); win != kNoCell) {
    result.best = win;
    result.score = kMate - 1;
    result.depth = 1;
    result.exact = true;
    result.pv = {win};
    result.nodes = 1;
    if (on_iteration) on_iteration({1, result.score, 1, {}, result.pv});
    return result;
  }
  if (threat_rules_ && root_analysis_) {
    // A VCF of our own wins outright; against one of the opponent's, only
    // the moves that leave it none are worth searching.
    auto r = vcf(false, kRootVcfPlies, root_share(kRootVcfNodes, 4));
    if (r.move == kNoCell) r = vcf(false, kRootVctPlies, root_share(kRootVctNodes), true);
    if (r.move != kNoCell) {
      result.best = r.move;
      result.score = kMate - r.plies;
      result.depth = r.plies;
      result.exact = true;
      result.pv = {r.move};
      result.nodes = nodes_;
      result.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
      if (on_iteration) on_iteration({r.plies, result.score, nodes_, result.elapsed, result.pv});
      return result;
    }
    root_moves_ = refutations_of_opponent_threats(false);
    if (root_moves_.none()) root_moves_ = refutations_of_opponent_threats(true);
  }
  // The iterations' own clock: the root's threat analysis is spent already.
  const auto iterations_start = Clock::now();
  const int max_depth = limits.depth > 0 ? std::min(limits.depth, empties()) : empties();
  for (int depth = 1; depth <= max_depth; ++depth) {
    root_raised_ = kNoCell;
    // From the fourth iteration on, three have completed: result holds
    // the last one's score.
    const Score score = iterate(depth, result.score);
    if (aborted_) {
      // A root move that beat the first one searched (the table's: the
      // last iteration's best), at a depth the last iteration did not
      // reach, is the better move: the search was only cut short of
      // proving it best of all.
      if (depth > 1 && root_raised_ != kNoCell && root_raised_ != result.best) {
        result.best = root_raised_;
        result.pv = {root_raised_};
      }
      break;
    }
    result.best = root_best_;
    result.score = score;
    result.depth = depth;
    result.pv = principal_variation(depth);
    if (result.pv.empty() || result.pv.front() != result.best) result.pv = {result.best};
    result.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
    result.nodes = nodes_;
    // A proven result needs no deeper look: a mate within the horizon, or
    // the whole rest of the game searched.
    result.exact = depth >= empties() || (is_mate_score(score) && mate_plies(score) <= depth);
    if (on_iteration) on_iteration({depth, score, nodes_, result.elapsed, result.pv});
    if (result.exact) break;
    // A single reply (a four to block, say) needs no deeper look under a clock.
    if (root_choices_ == 1 && deadline_) break;
    // Another iteration costs a few times all before it: under a clock,
    // start it only with more than 0.6 of the time spent still left.
    // (Waiting for twice as much left stopped the gomoku bot at a third of
    // its time, ~150 of 450 ms; an iteration cut short still counts where
    // it found a better move.) Time that is lost unless used is used.
    if (deadline_ && !use_all_time_ &&
        Clock::now() + (Clock::now() - iterations_start) * 6 / 10 > *deadline_)
      break;
  }
  if (result.best == kNoCell) {  // not even depth 1 finished: any sensible move
    result.best = root_best_ != kNoCell ? root_best_ : candidates(pos_.playable()).lowest();
    result.pv = {result.best};
  }
  result.nodes = nodes_;
  result.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
  return result;
}

// A leaf's terms: the windows counted one weight at a time by the
// evaluator's own state, the shapes and threats cell by cell, and whether
// negamax would stand pat here (its tests, in its order, its VCF dive too).
template <int W>
EvalTerms Core<W>::eval_terms(const Game& game) {
  seat(game, Limits{}, true);
  const Variant& v = geo_->variant;
  const Side us = pos_.to_move(), them = opponent(us);
  const int sign = us == Side::first ? 1 : -1;
  EvalTerms t;
  t.by_count.assign(v.k, 0);
  t.mover_by_count.assign(v.k, 0);
  t.first_to_move = us == Side::first;
  for (int n = 1; n < v.k; ++n) {
    Weights unit;
    unit.by_count.assign(v.k, 0);
    unit.by_count[n] = 1;
    detail::EvalState one(windows_, unit);
    one.reset(pos_.moves());
    t.by_count[n] = one.score_first();
    t.mover_by_count[n] = one.side_sum(us);
  }
  const Board playable = pos_.open_cells();
  t.quiet =
      (pos_.winning_cells(us) & playable).none() && (pos_.winning_cells(them) & playable).none();
  if (threat_rules_) {
    const auto [ours, theirs] =
        detail::line_threats(shape_, pos_.stones(us), pos_.stones(them), empty_cells());
    const auto terms = threat_terms(ours, theirs);
    for (int x : terms)
      t.threats.push_back(sign * x);
    t.quiet = t.quiet && theirs.threes.makers.none() &&
              !(ours.threes.makers.any() && theirs.fours.none());
    if (t.quiet) {
      // The leaf's short VCF dive, as negamax makes it before standing pat.
      const typename detail::Vcf<W>::Known known{.their_fives = Board{}, .own_fours = &ours.fours};
      t.quiet = vcf(false, kLeafVcfPlies, kLeafVcfNodes, false, &known).move == kNoCell;
    }
  }
  if (detail::shapes_fit(v)) {
    detail::ShapeState shapes(v);
    shapes.reset(v, pos_.moves());
    t.shapes.assign(10, 0);
    t.pairs.assign(detail::kPairs, 0);
    std::array<std::uint32_t, 2> held{};
    for (int c : bits(empty_cells()))
      for (Side s : {Side::first, Side::second}) {
        const int d = s == Side::first ? 1 : -1;
        const auto lines = shapes.shapes(c, s);
        for (detail::LineShape5 l : lines)
          if (l != detail::LineShape5::none) t.shapes[int(l) - 1] += d;
        if (const auto cls = detail::combine(lines); cls != detail::CellClass::plain)
          t.shapes[int(cls) + 6] += d;
        if (const int p = detail::pair_index(lines); p >= 0) {
          t.pairs[std::size_t(p)] += d;
          held[index(s)] |= 1u << p;
        }
      }
    // Whose pairs they are: the side to move's first, in the first player's
    // frame.
    t.held_pairs.assign(2 * detail::kPairs, 0);
    for (int p = 0; p < detail::kPairs; ++p) {
      t.held_pairs[std::size_t(p)] = sign * int((held[index(us)] >> p) & 1);
      t.held_pairs[std::size_t(detail::kPairs + p)] = sign * int((held[index(them)] >> p) & 1);
    }
  }
  return t;
}

template <int W>
std::optional<typename Core<W>::QuietMoves> Core<W>::quiet_moves(const Game& game) {
  seat(game, Limits{}, true);
  const Side us = pos_.to_move(), them = opponent(us);
  const Board playable = pos_.open_cells();
  if ((pos_.winning_cells(them) & playable).any() || (pos_.winning_cells(us) & playable).any())
    return std::nullopt;
  QuietMoves q;
  if (threat_rules_) {
    // As negamax sees them: a three of either side's decides the moves.
    const auto [ours, theirs] =
        detail::line_threats(shape_, pos_.stones(us), pos_.stones(them), empty_cells());
    if (theirs.threes.makers.any() || ours.threes.makers.any()) return std::nullopt;
    q.sharp = theirs.threes.any;
    q.fours = ordered_fours(ours.fours, theirs.fours);
  }
  q.moves = candidates(playable);
  if (geo_->variant.gravity) q.moves &= ~(pos_.winning_cells(them) >> 1);  // as negamax
  return q;
}

template <int W>
MoveRank Core<W>::move_rank(const Game& game, Cell move) {
  MoveRank r;
  const auto quiet = quiet_moves(game);
  if (!quiet) return r;
  const auto& [moves, sharp, fours] = *quiet;
  r.quiet = true;
  r.candidates = moves.count();
  r.searched = neighbourhood_ ? std::min(prune_width(1), r.candidates) : r.candidates;
  if (move < 0 || move >= Board::kBits || !moves.test(move)) return r;
  // A fresh search's order: what this searcher learnt is set aside meanwhile.
  const auto history = std::exchange(history_, {});
  const auto killers = std::exchange(killers_[1], {kNoCell, kNoCell});
  MoveList<W> list;
  (void)order(list, moves, kNoCell, 1, sharp, fours);  // no table move: no gains deferred
  for (int i = 0; i < list.size && r.rank < 0; ++i)
    if (list.pick(i) == move) r.rank = i;
  history_ = history;
  killers_[1] = killers;
  return r;
}

template <int W>
OrderTerms Core<W>::order_terms(const Game& game) {
  OrderTerms t;
  const auto quiet = quiet_moves(game);
  if (!quiet || !use_shapes_) return t;
  t.quiet = true;
  const Side us = pos_.to_move(), them = opponent(us);
  const auto played = pos_.moves();
  for (int m : bits(quiet->moves)) {
    OrderTerms::Move& move = t.moves.emplace_back();
    move.cell = Cell(m);
    move.tier = 2 * quiet->sharp.test(m) + quiet->fours.test(m);
    move.windows = eval_.gain(m, us);
    auto& terms = move.terms;
    terms.assign(detail::kOrderTerms, 0);
    terms[detail::kOrderShapeGain] = shapes_->gain(m, us);
    for (int side = 0; side < 2; ++side) {
      const auto lines = shapes_->shapes(m, side ? them : us);
      for (const auto line : lines)
        if (line != detail::LineShape5::none && line != detail::LineShape5::five)
          ++terms[(side ? detail::kOrderTheirLine : detail::kOrderOwnLine) + int(line) - 1];
      if (const auto c = detail::combine(lines); c != detail::CellClass::plain)
        ++terms[(side ? detail::kOrderTheirClass : detail::kOrderOwnClass) + int(c) - 1];
    }
    for (std::size_t i = 0; i < 2 && i < played.size(); ++i) {
      const int d = steps(m, played[played.size() - 1 - i]);
      if (d >= 1 && d <= (i ? detail::kOrderNearOwnSteps : detail::kOrderNearSteps))
        ++terms[(i ? detail::kOrderNearOwn : detail::kOrderNear) + d - 1];
    }
  }
  return t;
}

template <int W>
Score Core<W>::stand_pat(const Game& game) {
  seat(game, Limits{}, true);
  int threat_score = 0;
  if (threat_rules_) {
    const auto [ours, theirs] = detail::line_threats(
        shape_, pos_.stones(pos_.to_move()), pos_.stones(opponent(pos_.to_move())), empty_cells());
    threat_score = weigh_threats(threat_terms(ours, theirs));
  }
  return stand_pat_score(threat_score);
}

template <int W>
typename Core<W>::Board Core<W>::refutations_of_opponent_threats(bool threes) {
  const int plies = threes ? kRootVctPlies : kRootVcfPlies;
  if (vcf(true, plies, root_share(threes ? kRootVctNodes : kRootVcfNodes), threes).move == kNoCell)
    return {};
  Board keep;
  const Board their_fives = pos_.winning_cells(opponent(pos_.to_move())) & pos_.playable();
  const Board moves = their_fives.any() ? their_fives : candidates(pos_.playable());
  // At most a third of the time or nodes goes here; cut short, it restricts
  // nothing.
  const auto limit =
      deadline_ ? std::optional(Clock::now() + (*deadline_ - Clock::now()) / 3) : std::nullopt;
  const std::uint64_t node_cap =
      node_limit_ ? nodes_ + (node_limit_ - std::min(nodes_, node_limit_)) / 3 : 0;
  for (int m : bits(moves)) {
    if ((limit && Clock::now() >= *limit) || (node_cap && nodes_ >= node_cap) ||
        (stop_ && stop_->load(std::memory_order_relaxed)))
      return {};
    make(m);
    if (vcf(false, plies, kDefenceVcfNodes, threes).move == kNoCell) keep.set(m);
    undo();
  }
  return keep;  // empty when nothing refutes it: then search them all
}

template <int W>
std::vector<MoveScore> Core<W>::score_moves(const Game& game, const Limits& limits) {
  seat(game, limits, true);
  Board moves = candidates(pos_.playable());
  std::vector<MoveScore> out;
  const int n = moves.count();
  Limits child = limits;
  if (limits.depth > 0) child.depth = std::max(1, limits.depth - 1);
  if (limits.time.count() > 0) child.time = std::max(std::chrono::milliseconds(1), limits.time / n);
  if (limits.nodes > 0) child.nodes = std::max<std::uint64_t>(1, limits.nodes / n);
  root_analysis_ = false;
  for (int m : bits(moves)) {
    Game next = game;
    (void)next.play(m);
    Score score;
    if (next.outcome() != Outcome::ongoing)
      score = next.outcome() == Outcome::draw ? 0 : kMate - 1;
    else {
      score = -search(next, child, {}).score;
      if (is_mate_score(score)) score += score > 0 ? -1 : 1;  // one ply further from here
    }
    out.push_back({m, score});
  }
  root_analysis_ = true;
  std::stable_sort(out.begin(), out.end(),
                   [](const MoveScore& a, const MoveScore& b) { return a.score > b.score; });
  return out;
}

template <int W>
Solution Core<W>::solve(const Game& game, bool weak, const std::atomic<bool>* stop) {
  Limits limits;
  limits.stop = stop;
  seat(game, limits, false);
  const int depth = empties();
  Solution sol;
  auto finish = [&](Score s) {
    sol.score = s;
    sol.value_for_mover = s > 0   ? Outcome::first_wins
                          : s < 0 ? Outcome::second_wins
                                  : Outcome::draw;
    sol.plies = weak ? -1 : (s == 0 ? depth : mate_plies(s));
    sol.nodes = nodes_;
    return sol;
  };
  if (const Cell win = immediate_win(); win != kNoCell) {
    sol.best = win;
    return finish(kMate - 1);
  }
  if (weak) {
    const Score s = negamax(depth, -1, 1, 0);
    sol.best = root_best_;
    return finish(s > 0 ? 1 : s < 0 ? -1 : 0);
  }
  // Bisect the values with null windows (Pons). The values are ranked
  // compactly — loss in 2 plies < loss in 4 < ... < draw < ... < win in 3 <
  // win in 1 — so that the first probes ask bounded questions ("no loss
  // within n plies?") rather than "not lost at all?", which needs a full proof.
  const int horizon = depth + 1;
  const auto score_of = [&](int rank) -> Score {
    if (rank > 0) return kMate - (horizon - rank);
    if (rank < 0) return -(kMate - (horizon + rank));
    return 0;
  };
  const auto rank_of = [&](Score score) -> int {
    if (score > kMaxEval) return horizon - mate_plies(score);
    if (score < -kMaxEval) return -(horizon - mate_plies(score));
    return 0;
  };
  int lo = -horizon, hi = horizon;
  Cell proven = kNoCell;  // the move behind the last raise of lo achieves lo
  while (lo < hi && !aborted_) {
    int med = lo + (hi - lo) / 2;
    if (med <= 0 && lo / 2 < med)
      med = lo / 2;
    else if (med >= 0 && hi / 2 > med)
      med = hi / 2;
    const Score probe = score_of(med);
    const Score r = negamax(depth, probe, probe + 1, 0);
    if (r <= probe)
      hi = std::min(med, rank_of(r));
    else {
      lo = std::max(med + 1, rank_of(r));
      proven = root_best_;
    }
  }
  const Score value = score_of(lo);
  if (proven != kNoCell) {
    sol.best = proven;
    return finish(value);
  }
  // Every probe failed low: one last search inside the exact window names
  // the move that holds out longest.
  negamax(depth, value - 1, value + 1, 0);
  sol.best = root_best_;
  return finish(value);
}

}  // namespace

// --------------------------------------------------------------------------
// Searcher: the facade, holding the core for the variant's board width.

struct Searcher::Impl {
  Variant variant;
  Weights weights;
  TranspositionTable tt;
  std::variant<std::unique_ptr<Core<1>>, std::unique_ptr<Core<2>>, std::unique_ptr<Core<4>>,
               std::unique_ptr<Core<7>>>
      core;

  Impl(const Variant& v, Weights w, std::size_t mb) : variant(v), weights(std::move(w)), tt(mb) {
    if (weights.by_count.empty()) weights = Weights::defaults(v);
    switch (v.words()) {
      case 1:
        core = std::make_unique<Core<1>>(v, weights, tt);
        break;
      case 2:
        core = std::make_unique<Core<2>>(v, weights, tt);
        break;
      case 4:
        core = std::make_unique<Core<4>>(v, weights, tt);
        break;
      default:
        core = std::make_unique<Core<7>>(v, weights, tt);
        break;
    }
  }
};

Searcher::Searcher(const Variant& v, Weights weights, std::size_t tt_megabytes)
    : impl_(std::make_unique<Impl>(v, std::move(weights), tt_megabytes)) {}
Searcher::~Searcher() = default;
Searcher::Searcher(Searcher&&) noexcept = default;
Searcher& Searcher::operator=(Searcher&&) noexcept = default;

const Variant& Searcher::variant() const {
  return impl_->variant;
}

SearchResult Searcher::search(const Game& game, const Limits& limits,
                              const std::function<void(const SearchInfo&)>& on_iteration) {
  assert(game.variant() == impl_->variant && !game.over());
  return std::visit([&](auto& c) { return c->search(game, limits, on_iteration); }, impl_->core);
}

std::vector<MoveScore> Searcher::score_moves(const Game& game, const Limits& limits) {
  assert(game.variant() == impl_->variant && !game.over());
  return std::visit([&](auto& c) { return c->score_moves(game, limits); }, impl_->core);
}

Solution Searcher::solve(const Game& game, bool weak, const std::atomic<bool>* stop) {
  assert(game.variant() == impl_->variant && !game.over());
  return std::visit([&](auto& c) { return c->solve(game, weak, stop); }, impl_->core);
}

Score Searcher::evaluate(const Game& game) {
  assert(game.variant() == impl_->variant && !game.over());
  return std::visit([&](auto& c) { return c->stand_pat(game); }, impl_->core);
}

MoveRank Searcher::move_rank(const Game& game, Cell move) {
  assert(game.variant() == impl_->variant && !game.over());
  return std::visit([&](auto& c) { return c->move_rank(game, move); }, impl_->core);
}

OrderTerms Searcher::order_terms(const Game& game) {
  assert(game.variant() == impl_->variant && !game.over());
  return std::visit([&](auto& c) { return c->order_terms(game); }, impl_->core);
}

EvalTerms Searcher::eval_terms(const Game& game) {
  assert(game.variant() == impl_->variant && !game.over());
  return std::visit([&](auto& c) { return c->eval_terms(game); }, impl_->core);
}

void Searcher::clear() {
  impl_->tt.clear();
  std::visit([](auto& c) { c->clear_history(); }, impl_->core);
}

void Searcher::set_weights(Weights w) {
  if (w.by_count.empty()) w = Weights::defaults(impl_->variant);
  impl_->weights = std::move(w);
  std::visit([&](auto& c) { c->set_weights(impl_->weights); }, impl_->core);
}

}  // namespace inarow
