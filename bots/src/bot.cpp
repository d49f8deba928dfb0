#include "inarow/bots/bot.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <random>

#include "inarow/bots/weights_file.h"

namespace inarow::bots {

namespace {

constexpr std::array<Level, 6> kLevels = {{
    // name      depth time  blunder% noise solve
    {"beginner", 1, 0, 30, 40, false},
    {"easy", 2, 0, 10, 12, false},
    // medium and hard sat within each other's error bars at depths 4 and 6:
    // medium now looks one ply less and slips now and then.
    {"medium", 3, 0, 2, 6, false},
    {"hard", 6, 250, 0, 0, false},
    {"expert", 16, 1000, 0, 0, true},
    {"master", 0, 3000, 0, 0, true},
}};

// Wide boards: every level runs the forcing search at its root, so even a
// one-ply bot plays a win by fours it is given and blocks one; what tells
// the levels apart is how often they throw a move away and how far they see
// into quiet play. The levels below master count nodes rather than time, so
// a busy server plays them at the same strength, only slower (a clock still
// cuts them short); master takes the time it is given.
// bots/weights/gomoku_levels.txt has what they measured. Each step up is
// about five times the nodes: a first ladder gave 70-80 Elo a doubling
// (150,000 nodes over 20,000: +240), so 1,000,000 nodes sat within the
// margin of master's 3 s (+64 +- 116), and 5,000 nodes within that of depth
// 2 with slips. 1 s a move is about 1.3 M nodes on one core. Medium went
// down to 10,000 when the weights were tuned at 50,000 nodes: they lifted
// 20,000 to within the ladder's margins of hard (direct, 200 games: hard
// +135 +- 49 over 20,000, +220 +- 52 over 10,000; 10,000 over easy +372).
// Hard and expert went down to 50,000 and 250,000 when the shapes came on:
// slower nodes narrowed master's lead over 500,000 to +62 +- 94, within the
// margins, while 100,000 to 500,000 gave +165; five-fold steps from medium
// spread the top evenly again.
constexpr std::array<Level, 6> kWideLevels = {{
    // name      depth time  blunder% noise solve nodes
    {"beginner", 1, 0, 25, 60, false, 0},
    {"easy", 2, 0, 8, 20, false, 0},
    {"medium", 0, 0, 0, 0, false, 10'000},
    {"hard", 0, 0, 0, 0, false, 50'000},
    {"expert", 0, 0, 0, 0, false, 250'000},
    {"master", 0, 3000, 0, 0, false, 0},
}};

bool wide(const Variant& v) {
  return v.k >= 5 && !v.gravity;
}

std::optional<Level> find_in(std::span<const Level> table, std::string_view name) {
  for (const Level& l : table)
    if (l.name == name) return l;
  return std::nullopt;
}

// Positions this small are solved exactly instead of searched.
bool small_enough_to_solve(const Game& game) {
  const Variant& v = game.variant();
  const int empties = v.cells() - game.ply();
  if (v.gravity) return empties <= 22;
  return empties <= 16;
}

class RandomBot final : public Bot {
 public:
  explicit RandomBot(std::uint64_t seed) : rng_(seed) {}
  std::string name() const override { return "random"; }
  Choice choose(const Game& game, const MoveBudget&) override {
    const auto moves = game.legal_moves();
    std::uniform_int_distribution<std::size_t> pick(0, moves.size() - 1);
    return {moves[pick(rng_)], 0, 0, 0};
  }

 private:
  std::mt19937_64 rng_;
};

class SearchBot final : public Bot {
 public:
  SearchBot(const Variant& v, const BotSpec& spec, Weights w, std::uint64_t seed)
      : spec_(spec), searcher_(v, std::move(w), spec.tt_megabytes), rng_(seed) {}

  std::string name() const override { return spec_.text; }
  void new_game() override { searcher_.clear(); }

  Choice choose(const Game& game, const MoveBudget& budget) override {
    const Level& level = spec_.level;
    if (level.blunder_percent > 0 && percent_(rng_) < level.blunder_percent) {
      const auto moves = game.legal_moves();
      std::uniform_int_distribution<std::size_t> pick(0, moves.size() - 1);
      return {moves[pick(rng_)], 0, 0, 0};
    }
    if (level.solve_small && small_enough_to_solve(game)) {
      const Solution s = searcher_.solve(game, false, budget.stop);
      if (s.best != kNoCell && !(budget.stop && budget.stop->load()))
        return {s.best, s.score, s.plies, s.nodes};
    }
    Limits limits;
    limits.depth = level.depth;
    limits.nodes = spec_.nodes;
    limits.stop = budget.stop;
    limits.time = std::chrono::milliseconds(level.time_ms);
    if (budget.time.count() > 0 && (limits.time.count() == 0 || budget.time < limits.time)) {
      limits.time = budget.time;
      limits.use_all_time = budget.use_all_time;  // not a level's own ceiling
    }
    if (level.noise > 0) return choose_with_noise(game, limits);
    const SearchResult r = searcher_.search(game, limits);
    return {r.best, r.score, r.depth, r.nodes};
  }

 private:
  // Any move within `noise` points of the best, uniformly; a proven win or a
  // move that avoids a proven loss is never thrown away.
  Choice choose_with_noise(const Game& game, const Limits& limits) {
    const auto scored = searcher_.score_moves(game, limits);
    const Score best = scored.front().score;
    std::size_t n = 1;
    if (!is_mate_score(best))
      while (n < scored.size() && !is_mate_score(scored[n].score) &&
             scored[n].score >= best - spec_.level.noise)
        ++n;
    std::uniform_int_distribution<std::size_t> pick(0, n - 1);
    const MoveScore& m = scored[pick(rng_)];
    return {m.move, m.score, limits.depth, 0};
  }

  BotSpec spec_;
  Searcher searcher_;
  std::mt19937_64 rng_;
  std::uniform_int_distribution<int> percent_{0, 99};
};

Error spec_error(std::size_t offset, std::string message) {
  return Error{ErrorCode::bad_syntax, offset, std::move(message)};
}

// A plain searcher over given weights, for the tuners.
class WeightsBot final : public Bot {
 public:
  WeightsBot(const Variant& v, Weights w, int depth, std::uint64_t nodes, std::size_t tt)
      : searcher_(v, std::move(w), tt), depth_(depth), nodes_(nodes) {}
  std::string name() const override { return "weights"; }
  Choice choose(const Game& game, const MoveBudget& budget) override {
    const auto r = searcher_.search(game, Limits{.depth = depth_,
                                                 .nodes = nodes_,
                                                 .time = budget.time,
                                                 .stop = budget.stop,
                                                 .use_all_time = budget.use_all_time});
    return Choice{r.best, r.score, r.depth, r.nodes};
  }
  void new_game() override { searcher_.clear(); }

 private:
  Searcher searcher_;
  int depth_;
  std::uint64_t nodes_;
};

}  // namespace

std::span<const Level> levels() {
  return kLevels;
}

std::span<const Level> levels(const Variant& v) {
  if (wide(v)) return kWideLevels;
  return kLevels;
}

std::optional<Level> find_level(std::string_view name) {
  return find_in(kLevels, name);
}

std::optional<Level> find_level(std::string_view name, const Variant& v) {
  return find_in(levels(v), name);
}

expected<BotSpec, Error> BotSpec::parse(std::string_view text) {
  return parse_with(text, kLevels);
}

expected<BotSpec, Error> BotSpec::parse(std::string_view text, const Variant& v) {
  return parse_with(text, levels(v));
}

expected<BotSpec, Error> BotSpec::parse_with(std::string_view text, std::span<const Level> table) {
  BotSpec spec;
  spec.text = std::string(text);
  if (text.empty()) return unexpected(spec_error(0, "empty bot specification"));
  std::size_t at = 0;
  bool first = true, named = false, depth_set = false;
  while (at <= text.size()) {
    std::size_t end = text.find(',', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(at, end - at);
    const std::size_t offset = at;
    at = end + 1;
    if (item.empty()) return unexpected(spec_error(offset, "empty item in bot specification"));
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      if (!first)
        return unexpected(
            spec_error(offset, "expected key=value, found '" + std::string(item) + "'"));
      if (item == "random") {
        spec.random = true;
      } else if (auto level = find_in(table, item)) {
        spec.level = *level;
        spec.nodes = level->nodes;
        named = true;
      } else {
        std::string names;
        for (const Level& l : kLevels)
          names += std::string(names.empty() ? "" : ", ") + std::string(l.name);
        return unexpected(spec_error(
            offset, "unknown level '" + std::string(item) + "' (random, " + names + ")"));
      }
      first = false;
      continue;
    }
    first = false;
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "eval") {
      if (value != "shapes" && value != "windows")
        return unexpected(spec_error(
            offset + eq + 1, "eval is shapes or windows, not '" + std::string(value) + "'"));
      spec.eval = std::string(value);
      continue;
    }
    if (key == "weights") {
      if (value.empty()) return unexpected(spec_error(offset, "weights= needs a file path"));
      spec.weights_path = std::string(value);
      continue;
    }
    long long number = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (ec != std::errc{} || ptr != value.data() + value.size() || number < 0)
      return unexpected(spec_error(
          offset + eq + 1, "'" + std::string(value) + "' is not a non-negative whole number"));
    if (key == "depth") {
      spec.level.depth = static_cast<int>(std::min(number, 400LL));
      depth_set = true;
    } else if (key == "time")
      spec.level.time_ms = static_cast<int>(std::min(number, 3'600'000LL));
    else if (key == "nodes")
      spec.nodes = static_cast<std::uint64_t>(number);
    else if (key == "noise")
      spec.level.noise = static_cast<int>(std::min(number, 100000LL));
    else if (key == "blunder") {
      if (number > 100) return unexpected(spec_error(offset, "blunder is a percentage, 0-100"));
      spec.level.blunder_percent = static_cast<int>(number);
    } else if (key == "tt")
      spec.tt_megabytes = static_cast<std::size_t>(std::clamp(number, 1LL, 4096LL));
    else if (key == "solve")
      spec.level.solve_small = number != 0;
    else
      return unexpected(spec_error(
          offset, "unknown key '" + std::string(key) +
                      "' (depth, time, nodes, noise, blunder, weights, tt, solve, eval)"));
  }
  // "time=1000" or "nodes=150000" alone means as deep as that allows, not
  // the custom preset's four plies.
  if (!named && !depth_set && (spec.level.time_ms > 0 || spec.nodes > 0)) spec.level.depth = 0;
  if (spec.level.depth == 0 && spec.level.time_ms == 0 && spec.nodes == 0 && !spec.random)
    return unexpected(spec_error(0, "a bot needs a limit: depth, time or nodes"));
  return spec;
}

std::unique_ptr<Bot> make_random_bot(std::uint64_t seed) {
  return std::make_unique<RandomBot>(seed);
}

expected<std::unique_ptr<Bot>, Error> make_bot(const Variant& v, const BotSpec& given,
                                               std::uint64_t seed) {
  if (given.random) return std::unique_ptr<Bot>(make_random_bot(seed));
  // A level name stands for this board's preset of that name, with the
  // settings written after it still on top; the text was parsed once
  // already, so it parses again.
  BotSpec spec = given;
  if (wide(v) && !given.text.empty())
    if (auto resolved = BotSpec::parse(given.text, v)) spec = std::move(*resolved);
  Weights weights = Weights::defaults(v);
  if (!spec.weights_path.empty()) {
    auto loaded = load_weights(v, spec.weights_path);
    if (!loaded) return unexpected(std::move(loaded).error());
    weights = std::move(*loaded);
  }
  // eval=shapes asks for what only k = 5 boards without gravity have; elsewhere
  // the windows stay (the setting is a preference, like a level's time).
  if (spec.eval == "windows") weights.shapes_on = false;
  if (spec.eval == "shapes") weights.shapes_on = !weights.shapes.empty();
  return std::unique_ptr<Bot>(std::make_unique<SearchBot>(v, spec, std::move(weights), seed));
}

expected<std::unique_ptr<Bot>, Error> make_level_bot(const Variant& v, std::string_view level,
                                                     std::uint64_t seed) {
  auto spec = BotSpec::parse(level);
  if (!spec) return unexpected(std::move(spec).error());
  return make_bot(v, *spec, seed);
}

std::unique_ptr<Bot> make_weights_bot(const Variant& v, Weights weights, int depth,
                                      std::uint64_t nodes, std::size_t tt_megabytes) {
  return std::make_unique<WeightsBot>(v, std::move(weights), depth, nodes, tt_megabytes);
}

}  // namespace inarow::bots
