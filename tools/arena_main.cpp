// inarow-arena: bot-vs-bot tournaments (the default subcommand), SPSA and
// Texel weight tuning, the move order set against recorded games, and the
// calibration of the bot levels.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <thread>
#include <tuple>

#include "inarow/arena/calibration.h"
#include "inarow/arena/move_order.h"
#include "inarow/arena/report.h"
#include "inarow/arena/spsa.h"
#include "inarow/arena/texel.h"
#include "inarow/arena/tournament.h"
#include "inarow/arena/verify.h"
#include "inarow/bots/weights_file.h"

namespace {

using namespace inarow;
using namespace inarow::arena;
using inarow::bots::make_bot;

std::atomic<bool> g_stop{false};

extern "C" void on_interrupt(int) {
  // The first ^C stops after the games in flight are abandoned; the record
  // keeps every finished game, so the same command resumes.
  if (g_stop.exchange(true)) std::_Exit(130);
}

// Settings shared by the subcommands that play games.
struct MatchOptions {
  std::string variant = "connect4";
  int games = 2;
  int concurrency = int(std::max(1u, std::thread::hardware_concurrency()));
  std::uint64_t seed = 1;
  int openings = 32;
  int opening_plies = -1;
  int opening_depth = 4;
  int tc_move = 0, tc_game = 0, increment = 0, margin = 50;
  std::string record;
  bool quiet = false;

  void add_to(CLI::App& app) {
    app.add_option("-v,--variant", variant,
                   "tictactoe | connect4 | gomoku | gomoku-standard | mnk:M,N,K[,gravity][,exact]")
        ->capture_default_str();
    app.add_option("-n,--games", games, "Games per pairing (rounded up to whole pairs)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("-j,--concurrency", concurrency, "Games played at once")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--seed", seed, "Seed of the opening book and the bots' randomness")
        ->capture_default_str();
    app.add_option("--openings", openings, "Openings in the book (each played with both colours)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--opening-plies", opening_plies, "Random plies per opening (-1: by variant)")
        ->capture_default_str();
    app.add_option("--opening-depth", opening_depth, "Search depth of the opening balance check")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    app.add_option("--tc-move", tc_move, "Time limit per move in ms (0: none)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    app.add_option("--tc-game", tc_game, "Time per side per game in ms (0: none)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    app.add_option("--inc", increment, "Increment per move in ms with --tc-game")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    app.add_option("--time-margin", margin, "Lateness in ms tolerated before a loss on time")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    app.add_option("--record", record,
                   "Record file, one game a line (JSON); an existing one is resumed");
    app.add_flag("-q,--quiet", quiet, "No progress line");
  }

  // The tournament settings these options describe, or an error to print.
  expected<TournamentConfig, std::string> config() const {
    auto v = Variant::parse(variant);
    if (!v) return unexpected("--variant: " + v.error().describe());
    TournamentConfig cfg;
    cfg.variant = *v;
    cfg.games_per_pairing = games;
    cfg.concurrency = concurrency;
    cfg.seed = seed;
    cfg.openings.count = openings;
    cfg.openings.plies = opening_plies;
    cfg.openings.depth = opening_depth;
    cfg.time.per_move = std::chrono::milliseconds(tc_move);
    cfg.time.per_game = std::chrono::milliseconds(tc_game);
    cfg.time.increment = std::chrono::milliseconds(increment);
    cfg.time.margin = std::chrono::milliseconds(margin);
    cfg.record_path = record;
    cfg.stop = &g_stop;
    return cfg;
  }
};

// Progress on one line: rewritten in place on a terminal, every ~5% otherwise.
std::function<void(const Standings&, const GameRecord&)> progress(const TournamentConfig& cfg,
                                                                  bool quiet) {
  if (quiet) return {};
  const bool tty = ::isatty(2);
  return [&cfg, tty](const Standings& s, const GameRecord&) {
    const auto line = progress_line(cfg, s);
    if (tty) {
      std::fprintf(stderr, "\r%-100s", line.c_str());
      if (s.done_games == s.total_games) std::fprintf(stderr, "\n");
    } else if (s.done_games % std::max<std::int64_t>(1, s.total_games / 20) == 0 ||
               s.done_games == s.total_games) {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
  };
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) {
    std::cerr << "inarow-arena: cannot write " << path << "\n";
    return false;
  }
  return true;
}

// A per-weight list for the tuner: numbers in the order of `keys`
// ("4,2,2"), or by key ("w2=1,tempo=5"); a weight not given is NaN (the
// tuner's default).
expected<std::vector<double>, std::string> per_key(const std::string& text,
                                                   const std::vector<std::string>& keys) {
  std::vector<double> out(keys.size(), std::numeric_limits<double>::quiet_NaN());
  std::size_t pos = 0, i = 0;
  while (pos <= text.size()) {
    auto end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    std::size_t at = i++;
    std::string number = item;
    if (const auto eq = item.find('='); eq != std::string::npos) {
      const auto key = std::find(keys.begin(), keys.end(), item.substr(0, eq));
      if (key == keys.end())
        return unexpected("'" + item.substr(0, eq) + "' is not a tuned weight");
      at = std::size_t(key - keys.begin());
      number = item.substr(eq + 1);
    }
    double x = 0;
    const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), x);
    if (number.empty() || ec != std::errc{} || ptr != number.data() + number.size() || x < 0)
      return unexpected("'" + item + "' is not a number >= 0 (or key=number)");
    if (at >= keys.size())
      return unexpected("more values than tuned weights (" + std::to_string(keys.size()) + ")");
    out[at] = x;
  }
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& x : items)
    out += (out.empty() ? "" : ",") + x;
  return out;
}

expected<Weights, std::string> weights_or_defaults(const Variant& v, const std::string& path) {
  if (path.empty()) return Weights::defaults(v);
  auto w = bots::load_weights(v, path);
  if (!w) return unexpected(path + ": " + w.error().describe());
  return *w;
}

// A variant by name and weights for it from a file (or its built-in ones
// when `path` is empty), for the subcommands that take both. Says what is
// wrong on stderr, naming `flag` for the file, and returns nothing.
std::optional<std::pair<Variant, Weights>> variant_and_weights(const std::string& name,
                                                               const std::string& path,
                                                               const char* flag) {
  auto v = Variant::parse(name);
  if (!v) {
    std::cerr << "inarow-arena: --variant: " << v.error().describe() << "\n";
    return std::nullopt;
  }
  auto w = weights_or_defaults(*v, path);
  if (!w) {
    std::cerr << "inarow-arena: " << flag << ": " << w.error() << "\n";
    return std::nullopt;
  }
  return std::pair{*v, *w};
}

// What `parse` (labelled_games, labelled_positions) finds in each file
// given to `flag`. Says what is wrong on stderr and returns nothing when a
// file cannot be read or parsed, or none holds anything (`what`).
template <typename Parse>
auto read_files(const Variant& v, const std::vector<std::string>& paths, const std::string& flag,
                const std::string& what, Parse parse)
    -> std::optional<typename decltype(parse(v, std::string_view{}))::value_type> {
  typename decltype(parse(v, std::string_view{}))::value_type out;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::cerr << "inarow-arena: " << flag << ": cannot read " << path << "\n";
      return std::nullopt;
    }
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    auto items = parse(v, text);
    if (!items) {
      std::cerr << "inarow-arena: " << flag << ": " << path << ": " << items.error().message
                << "\n";
      return std::nullopt;
    }
    out.insert(out.end(), items->begin(), items->end());
  }
  if (out.empty()) {
    std::cerr << "inarow-arena: " << flag << ": no " << what << " in them\n";
    return std::nullopt;
  }
  return out;
}

// The finished games of `v` in tournament record files, for the Texel fit
// and the move-order check.
std::optional<std::vector<LabelledGame>> read_records(const Variant& v,
                                                      const std::vector<std::string>& paths) {
  return read_files(v, paths, "--records", "finished " + v.name + " games", labelled_games);
}

// Labelled positions of `v` (texel --labels).
std::optional<std::vector<LabelledPosition>> read_labels(const Variant& v,
                                                         const std::vector<std::string>& paths) {
  return read_files(v, paths, "--labels", "positions", labelled_positions);
}

// inarow-arena order --fit: fits, says what moved and writes the weights.
int fit_order_command(const Variant& v, const Weights& start,
                      const std::vector<LabelledGame>& games, const OrderFitOptions& options,
                      const std::string& out) {
  const auto fit = fit_move_order(v, start, games, options);
  if (!fit) {
    std::cerr << "inarow-arena: order --fit: " << fit.error().message << "\n";
    return 2;
  }
  if (fit->positions == 0) {
    std::cerr << "inarow-arena: order --fit: no quiet positions with a choice in the games\n";
    return 1;
  }
  char buf[128];
  std::snprintf(buf, sizeof buf, "%lld choices (%lld candidate moves) from %lld games",
                static_cast<long long>(fit->positions), static_cast<long long>(fit->candidates),
                static_cast<long long>(fit->games));
  std::cout << "Move order fit on " << v.name << ": " << buf << ", " << fit->iterations
            << " Newton steps\n";
  std::snprintf(buf, sizeof buf, "  -ln P(played move): %.4f -> %.4f a choice\n", fit->loss_start,
                fit->loss_end);
  std::cout << buf;
  std::snprintf(buf, sizeof buf, "  played move first in its tier: %.1f%% -> %.1f%%\n",
                100 * fit->first_start, 100 * fit->first_end);
  std::cout << buf;
  std::cout << "  fitted:";
  for (const std::string& key : fit->fitted)
    std::cout << " " << key << " " << *start.find(key) << " -> " << *fit->weights.find(key);
  std::cout << "\n  kept (seen on fewer than " << options.min_count << " candidates):";
  for (const std::string& key : fit->kept)
    std::cout << " " << key;
  std::cout << "\n";
  const std::string header =
      "# The move order's terms fitted to " + std::to_string(fit->positions) + " choices of " +
      std::to_string(fit->games) +
      " recorded games (inarow-arena order --fit)\nvariant = " + v.name + "\n";
  if (!write_file(out, header + fit->weights.to_text())) return 1;
  std::cout << "wrote " << out << "\n";
  return 0;
}

int run_tournament_command(const MatchOptions& mo, const std::vector<std::string>& engines,
                           const std::string& format, const std::string& sprt,
                           const std::string& json_path) {
  auto cfg = mo.config();
  if (!cfg) {
    std::cerr << "inarow-arena: " << cfg.error() << "\n";
    return 2;
  }
  for (const auto& e : engines) {
    auto p = Participant::parse(e);
    if (!p) {
      std::cerr << "inarow-arena: --engine '" << e << "': " << p.error().describe() << "\n";
      return 2;
    }
    cfg->participants.push_back(std::move(p).value());
  }
  // Catch a bad weights file or spec now, as a usage error, not mid-tournament.
  for (const auto& p : cfg->participants) {
    if (p.external) continue;
    if (auto bot = make_bot(cfg->variant, p.bot, 0); !bot) {
      std::cerr << "inarow-arena: --engine '" << p.name << "': " << bot.error().message << "\n";
      return 2;
    }
  }
  cfg->format = format == "gauntlet" ? Format::gauntlet
                : format == "ladder" ? Format::ladder
                                     : Format::round_robin;
  if (!sprt.empty()) {
    auto s = SprtConfig::parse(sprt);
    if (!s) {
      std::cerr << "inarow-arena: --sprt: " << s.error().describe() << "\n";
      return 2;
    }
    cfg->sprt = *s;
  }
  auto result = run_tournament(*cfg, progress(*cfg, mo.quiet));
  if (!result) {
    std::cerr << "\ninarow-arena: " << result.error().message << "\n";
    return 1;
  }
  std::cout << "\n" << format_report(*cfg, *result);
  if (!json_path.empty() && !write_file(json_path, to_json(*cfg, *result))) return 1;
  return result->stopped ? 130 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "inarow-arena: bot-vs-bot tournaments with honest statistics, weight tuning (SPSA, "
      "Texel) and level calibration.\nThe tournament subcommand is the default."};
  app.require_subcommand(1);

  // tournament
  auto* tour = app.add_subcommand("tournament", "Round robin or gauntlet between bots/engines");
  MatchOptions tour_opts;
  std::vector<std::string> engines;
  std::string format = "round-robin", sprt, json_path;
  tour->add_option("-e,--engine", engines,
                   "Participant: [name:]spec, spec a bot (hard | depth=4,weights=w.txt) or "
                   "pbrain:COMMAND (repeat; at least two)")
      ->required();
  tour->add_option("--format", format,
                   "round-robin | gauntlet (first engine against the rest) | ladder (engines "
                   "weakest first, each against the next two)")
      ->capture_default_str()
      ->check(CLI::IsMember({"round-robin", "gauntlet", "ladder"}));
  tour->add_option("--sprt", sprt, "Stop by SPRT: elo0=0,elo1=5,alpha=0.05,beta=0.05");
  tour->add_option("--json", json_path, "Write the results as JSON to this file");
  tour_opts.add_to(*tour);

  // tune
  auto* tune = app.add_subcommand("tune", "SPSA tuning of a variant's evaluation weights");
  MatchOptions tune_opts;
  tune_opts.variant = "connect4";
  std::string tune_start, tune_out = "weights.txt", tune_history, tune_plot, c_end, r_end;
  int iterations = 200, tune_depth = 2, pairs = 0;
  std::uint64_t tune_nodes = 0;
  std::vector<std::string> tune_keys;
  double A = -1;
  tune->add_option("--start", tune_start, "Start weights file (default: the built-in weights)");
  tune->add_option("--iterations", iterations, "SPSA iterations")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  auto* depth_opt = tune->add_option("--depth", tune_depth, "Search depth of the tuning games")
                        ->capture_default_str()
                        ->check(CLI::PositiveNumber);
  tune->add_option("--nodes", tune_nodes,
                   "Nodes a move in the tuning games, as the bots' levels count them (then "
                   "no depth limit unless --depth)");
  tune->add_option("--params", tune_keys,
                   "Weights to move, by key (w1.., four, three, their_four, their_three, tempo, "
                   "shape_...); default: every weight the evaluation counts, and the tempo "
                   "where it is in use")
      ->delimiter(',');
  tune->add_option("--pairs", pairs, "Game pairs per iteration (default: --concurrency)");
  tune->add_option("--A", A, "SPSA stability constant A (default: iterations / 10)");
  tune->add_option("--c-end", c_end,
                   "c_end per tuned weight, comma separated in --params order or key=value "
                   "(default |w|/10, min 1; 0 holds a weight)");
  tune->add_option("--r-end", r_end, "r_end per tuned weight, as --c-end (default 0.002)");
  tune->add_option("-o,--out", tune_out, "Final weights file")->capture_default_str();
  tune->add_option("--history", tune_history, "CSV of every weight after every iteration");
  tune->add_option("--plot", tune_plot, "SVG plot of the weights over the iterations");
  std::string tune_sprt;
  int tune_sprt_games = 4000;
  tune->add_option("--sprt", tune_sprt,
                   "Then check tuned against start weights by SPRT: elo0=0,elo1=10,...");
  tune->add_option("--sprt-games", tune_sprt_games, "Most games of that check")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  tune_opts.add_to(*tune);

  // texel
  auto* texel = app.add_subcommand(
      "texel",
      "Fit weights to game results (logistic fit): self-play, recorded games, or labelled "
      "positions");
  std::string texel_variant = "connect4", texel_start, texel_out = "weights.txt";
  int texel_games = 200, texel_depth = 2, texel_iterations = 300;
  std::uint64_t texel_seed = 1;
  texel->add_option("-v,--variant", texel_variant, "Variant")->capture_default_str();
  texel->add_option("--start", texel_start, "Start weights file (default: built-in)");
  texel->add_option("--games", texel_games, "Self-play games")->capture_default_str();
  std::vector<std::string> texel_records;
  texel->add_option("--records", texel_records,
                    "Tournament record files (--record) to take the games from instead of "
                    "self-play; repeatable");
  std::vector<std::string> texel_labels;
  texel
      ->add_option("--labels", texel_labels,
                   "Labelled positions instead of games: 'MOVES CHANCE' a line, CHANCE the "
                   "first player's (0..1; e.g. a stronger engine's view); repeatable")
      ->excludes("--records");
  int texel_min_count = 0;
  texel
      ->add_option("--min-count", texel_min_count,
                   "Positions a term must be non-zero in to be fitted (else it keeps its "
                   "start weight)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  texel->add_option("--depth", texel_depth, "Self-play search depth")->capture_default_str();
  texel->add_option("--iterations", texel_iterations, "Gradient steps")->capture_default_str();
  texel->add_option("--seed", texel_seed, "Seed")->capture_default_str();
  texel->add_option("-o,--out", texel_out, "Fitted weights file")->capture_default_str();

  // order
  auto* order = app.add_subcommand(
      "order", "Where the moves of recorded games come in the search's move order");
  std::string order_variant = "gomoku", order_weights;
  std::vector<std::string> order_records;
  order->add_option("-v,--variant", order_variant, "Variant")->capture_default_str();
  order->add_option("--records", order_records, "Tournament record files (--record); repeatable")
      ->required();
  order->add_option("--weights", order_weights, "Weights file (default: built-in)");
  bool order_fit = false;
  std::string order_out = "order.txt";
  OrderFitOptions order_fit_options;
  order->add_flag("--fit", order_fit,
                  "Fit the order's terms to the games' moves (gomoku-like boards, shapes on)");
  order
      ->add_option("--min-count", order_fit_options.min_count,
                   "With --fit: candidate moves a term needs to be fitted")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  order->add_option("-o,--out", order_out, "With --fit: the fitted weights file")
      ->capture_default_str();

  // calibrate
  auto* cal = app.add_subcommand("calibrate", "Measure the bot levels' Elo against each other");
  MatchOptions cal_opts;
  cal_opts.games = 20;
  std::vector<std::string> levels;
  std::string ladder_out = "levels.txt";
  cal->add_option("--levels", levels,
                  "Levels, weakest first (default: all): names, or participants as -e takes "
                  "them (\"base:medium,weights=w.txt\"), comma or space separated");
  cal->add_option("-o,--out", ladder_out, "Ladder file")->capture_default_str();
  std::string ladder_json;
  cal->add_option("--json", ladder_json, "Also write the ladder as JSON to this file");
  bool cal_neighbours = false;
  cal->add_flag("--neighbours", cal_neighbours,
                "Each level plays only the next two (not every other level)");
  cal_opts.add_to(*cal);

  // The tournament is the default: "inarow-arena -e a -e b" means "inarow-arena tournament ...".
  std::vector<std::string> args(argv, argv + argc);
  if (argc > 1) {
    const std::string first = args[1];
    if (first != "tournament" && first != "tune" && first != "texel" && first != "order" &&
        first != "calibrate" && first != "-h" && first != "--help")
      args.insert(args.begin() + 1, "tournament");
  }
  std::vector<char*> cargs;
  for (auto& a : args)
    cargs.push_back(a.data());
  try {
    app.parse(int(cargs.size()), cargs.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);

  if (tour->parsed()) {
    if (engines.size() < 2) {
      std::cerr << "inarow-arena: a tournament needs at least two --engine\n";
      return 2;
    }
    return run_tournament_command(tour_opts, engines, format, sprt, json_path);
  }

  if (tune->parsed()) {
    const auto setup = variant_and_weights(tune_opts.variant, tune_start, "--start");
    if (!setup) return 2;
    const Variant* v = &setup->first;
    const Weights* start = &setup->second;
    SpsaOptions o;
    o.variant = *v;
    o.start = *start;
    o.iterations = iterations;
    o.A = A;
    // A node limit alone means as deep as it allows, as in a bot spec.
    o.depth = tune_nodes > 0 && depth_opt->count() == 0 ? 0 : tune_depth;
    o.nodes = tune_nodes;
    o.keys = tune_keys.empty() ? spsa_default_keys(*start) : tune_keys;
    for (const auto& key : o.keys)
      if (!start->find(key)) {
        std::cerr << "inarow-arena: --params: '" << key << "' is not a weight of " << v->name
                  << " (" << joined(start->keys()) << ")\n";
        return 2;
      }
    o.pairs_per_iteration = pairs > 0 ? pairs : tune_opts.concurrency;
    o.seed = tune_opts.seed;
    o.openings.count = std::max(tune_opts.openings, 64);
    o.openings.plies = tune_opts.opening_plies;
    o.openings.depth = std::min(tune_opts.opening_depth, 2);
    for (auto [text, list, flag] :
         {std::tuple{&c_end, &o.c_end, "--c-end"}, std::tuple{&r_end, &o.r_end, "--r-end"}}) {
      if (text->empty()) continue;
      auto values = per_key(*text, o.keys);
      if (!values) {
        std::cerr << "inarow-arena: " << flag << ": " << values.error() << "\n";
        return 2;
      }
      *list = std::move(values).value();
    }
    // ^C stops after the iteration in flight and writes theta as it stands.
    o.stop = &g_stop;
    const bool tty = ::isatty(2);
    const auto r = run_spsa(o, [&](int k, const std::vector<double>& theta) {
      if (tune_opts.quiet || g_stop) return;
      std::string line = "[" + std::to_string(k) + "/" + std::to_string(iterations) + "]";
      for (std::size_t i = 0; i < theta.size(); ++i) {
        char buf[48];
        std::snprintf(buf, sizeof buf, " %s=%.2f", o.keys[i].c_str(), theta[i]);
        line += buf;
      }
      if (tty) {
        std::fprintf(stderr, "\r%-100s", line.c_str());
      } else if (k % std::max(1, iterations / 20) == 0) {
        std::fprintf(stderr, "%s\n", line.c_str());
      }
    });
    if (tty && !tune_opts.quiet) std::fprintf(stderr, "\n");
    if (g_stop) std::cerr << "inarow-arena: stopped after " << r.iterations << " iterations\n";
    std::cout << "SPSA " << v->name << ": " << r.iterations << " iterations, " << r.games
              << " games (theta+ +" << r.plus.wins << " =" << r.plus.draws << " -" << r.plus.losses
              << ")\nstart:\n"
              << start->to_text() << "final:\n"
              << r.weights.to_text();
    const std::string header =
        "# SPSA-tuned weights for " + v->name + "\nvariant = " + v->name + "\n";
    if (!write_file(tune_out, header + r.weights.to_text())) return 1;
    if (!tune_history.empty() && !write_file(tune_history, spsa_history_csv(r))) return 1;
    if (!tune_plot.empty() &&
        !write_file(tune_plot, spsa_history_svg(r, "SPSA weights, " + v->name)))
      return 1;
    if (!tune_sprt.empty()) {
      // The check (verify.h): tuned against start weights, stopped by SPRT.
      auto sprt_cfg = SprtConfig::parse(tune_sprt);
      if (!sprt_cfg) {
        std::cerr << "inarow-arena: --sprt: " << sprt_cfg.error().describe() << "\n";
        return 2;
      }
      const VerifyPlan plan{*sprt_cfg, tune_sprt_games, o.depth, tune_out, o.nodes};
      const std::string start_path = start_weights_path(tune_out);
      if (!write_file(start_path, "variant = " + v->name + "\n" + start->to_text())) return 1;
      auto match = tune_opts.config();
      if (!match) return 2;
      const TournamentConfig cfg = verification_config(std::move(match).value(), plan);
      auto result = run_tournament(cfg, progress(cfg, tune_opts.quiet));
      if (!result) {
        std::cerr << "\ninarow-arena: " << result.error().message << "\n";
        return 1;
      }
      std::cout << "\n" << format_report(cfg, *result);
      return 0;
    }
    const std::string limits = spec_limits(o.depth, o.nodes);
    std::cout << "wrote " << tune_out << "\ncheck it: inarow-arena -v " << v->name
              << " -e tuned:" << limits << ",weights=" << tune_out << " -e base:" << limits
              << (tune_start.empty() ? "" : ",weights=" + tune_start)
              << " -n 2000 --sprt elo0=0,elo1=10\n";
    return 0;
  }

  if (texel->parsed()) {
    const auto setup = variant_and_weights(texel_variant, texel_start, "--start");
    if (!setup) return 2;
    const auto& [variant, start] = *setup;
    TexelOptions o;
    o.variant = variant;
    o.start = start;
    o.games = texel_games;
    if (!texel_records.empty()) {
      auto games = read_records(variant, texel_records);
      if (!games) return 2;
      o.recorded = std::move(games).value();
    }
    if (!texel_labels.empty()) {
      auto positions = read_labels(variant, texel_labels);
      if (!positions) return 2;
      o.positions = std::move(positions).value();
    }
    o.min_count = texel_min_count;
    o.depth = texel_depth;
    o.iterations = texel_iterations;
    o.seed = texel_seed;
    const auto r = run_texel(o);
    std::cout << "Texel fit " << variant.name << ": " << r.positions << " positions, K " << r.k
              << ", mean squared error " << r.loss_start << " -> " << r.loss_end << "; "
              << r.held_out << " held out: " << r.held_out_start << " -> " << r.held_out_end
              << "\n";
    if (!r.kept.empty()) std::cout << "kept (fewer than --min-count): " << joined(r.kept) << "\n";
    std::cout << r.weights.to_text();
    const std::string header =
        "# Texel-fitted weights for " + variant.name + "\nvariant = " + variant.name + "\n";
    return write_file(texel_out, header + r.weights.to_text()) ? 0 : 1;
  }

  if (order->parsed()) {
    const auto setup = variant_and_weights(order_variant, order_weights, "--weights");
    if (!setup) return 2;
    const auto& [variant, weights] = *setup;
    const auto games = read_records(variant, order_records);
    if (!games) return 2;
    if (order_fit) return fit_order_command(variant, weights, *games, order_fit_options, order_out);
    const auto r = measure_move_order(variant, weights, *games);
    auto percent = [&](std::int64_t n) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%.1f%%",
                    r.positions ? 100.0 * double(n) / double(r.positions) : 0.0);
      return std::string(buf);
    };
    std::cout << "Move order on " << variant.name << ": " << r.positions << " quiet positions from "
              << r.games << " games\n";
    for (int n : {1, 2, 3, 5, 8, 10, 12, 16}) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "  played move in the first %2d: %5.1f%%\n", n,
                    100 * r.top(n));
      std::cout << buf;
    }
    std::cout << "  searched at an interior node: " << percent(r.searched) << "\n"
              << "  not a candidate: " << percent(r.outside) << "\n";
    return 0;
  }

  if (cal->parsed()) {
    auto cfg = cal_opts.config();
    if (!cfg) {
      std::cerr << "inarow-arena: " << cfg.error() << "\n";
      return 2;
    }
    if (cal_neighbours) cfg->format = Format::ladder;
    std::vector<std::string> participants;
    for (const std::string& list : levels)
      for (std::string& item : split_participants(list))
        participants.push_back(std::move(item));
    auto ladder = calibrate(*cfg, participants, progress(*cfg, cal_opts.quiet));
    if (!ladder) {
      std::cerr << "\ninarow-arena: " << ladder.error().describe() << "\n";
      // A bad level list or a record path that cannot be written is a usage error.
      const ErrorCode code = ladder.error().code;
      return code == ErrorCode::bad_syntax || code == ErrorCode::cannot_write ? 2 : 1;
    }
    std::cout << "\n" << ladder->to_text();
    if (ladder->stopped) {
      std::cout << "stopped: partial ladder, not written; run the same command to resume\n";
      return 130;
    }
    std::cout << (ladder->monotone(true) ? "monotone with clear gaps\n"
                  : ladder->monotone()   ? "monotone, but some gaps are within the margins\n"
                                         : "NOT monotone\n");
    if (!ladder_json.empty() && !write_file(ladder_json, ladder->to_json())) return 1;
    return write_file(ladder_out, ladder->to_text()) ? 0 : 1;
  }
  return 2;
}
