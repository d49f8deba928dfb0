// inarow-engine: solve or analyse positions, play a bot in the terminal, run the bench.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "bench_positions.h"
#include "inarow/bots/bot.h"
#include "inarow/engine/forcing.h"
#include "inarow/engine/game.h"
#include "inarow/engine/notation.h"
#include "inarow/engine/search.h"
#include "tactics_suite.h"

namespace {

using namespace inarow;
using Clock = std::chrono::steady_clock;

Variant variant_or_exit(const std::string& name) {
  auto v = Variant::parse(name);
  if (!v) {
    std::cerr << "inarow-engine: --variant: " << v.error().message << "\n";
    std::exit(2);
  }
  return *v;
}

// Positions from standard input, one a line (its first field; "" or "-"
// is the start): each playable one goes to `answer` with the text it was
// given as, each other one is named on standard error and the rest go on.
// The exit status: 1 if any line was not a playable position.
template <class Answer>
int each_position(const Variant& v, Answer answer) {
  std::string line;
  int line_no = 0, failures = 0;
  while (std::getline(std::cin, line)) {
    ++line_no;
    std::istringstream fields(line);
    std::string text;
    fields >> text;
    const std::string shown = text.empty() ? "-" : text;
    auto game = Game::parse(v, text);
    if (!game) {
      std::cerr << "line " << line_no << ": '" << shown << "' " << game.error().describe() << "\n";
      ++failures;
      continue;
    }
    if (game->over()) {
      std::cerr << "line " << line_no << ": '" << shown << "' the game is already over ("
                << to_string(game->outcome()) << ")\n";
      ++failures;
      continue;
    }
    answer(shown, *game);
  }
  return failures == 0 ? 0 : 1;
}

// solve: one position a line in, one verdict a line out.
int run_solve(const Variant& v, bool weak, std::size_t tt_mb) {
  Searcher searcher(v, {}, tt_mb);
  return each_position(v, [&](const std::string& shown, const Game& game) {
    searcher.clear();
    const Solution s = searcher.solve(game, weak);
    const char* value = s.value_for_mover == Outcome::first_wins    ? "win"
                        : s.value_for_mover == Outcome::second_wins ? "loss"
                                                                    : "draw";
    std::cout << shown << ' ' << value << ' ' << (weak ? std::string("-") : std::to_string(s.plies))
              << ' ' << format_move(v, s.best) << ' ' << s.nodes << '\n';
  });
}

// play: a person against a bot level, at a terminal or with moves piped in.
int run_play(const Variant& v, const std::string& level, const std::string& human_side,
             std::uint64_t seed) {
  auto bot = bots::make_level_bot(v, level, seed);
  if (!bot) {
    std::cerr << "inarow-engine: --level: " << bot.error().message << "\n";
    return 2;
  }
  const Side human = human_side == "second" ? Side::second : Side::first;
  const bool interactive = isatty(STDIN_FILENO);
  Game game(v);
  std::cout << "inarow " << v.name << ": you are "
            << (human == Side::first ? "X (first)" : "O (second)") << " against the " << level
            << " bot. Type a move ("
            << (v.gravity ? "a column, e.g. 4"
                          : "a cell, e.g. " + format_cell(v, v.cell(v.width / 2, v.height / 2)))
            << "), 'undo', 'help' or 'quit'.\n";
  while (!game.over()) {
    if (game.to_move() != human) {
      const auto choice = (*bot)->choose(game, {});
      (void)game.play(choice.move);
      std::cout << "bot plays " << format_move(v, choice.move) << "\n";
      continue;
    }
    std::cout << "\n" << game.diagram();
    if (interactive) std::cout << "your move> " << std::flush;
    std::string line;
    if (!std::getline(std::cin, line)) {
      std::cout << "\nno more input: game abandoned\n";
      return 0;
    }
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word.empty()) continue;
    if (word == "quit") return 0;
    if (word == "help") {
      std::cout << "moves: " << (v.gravity ? "a column number" : "a cell such as c3")
                << "; undo takes back your last move; quit leaves.\n";
      continue;
    }
    if (word == "undo") {
      if (game.ply() < 2) {
        std::cout << "nothing to take back\n";
        continue;
      }
      game.undo();
      game.undo();
      continue;
    }
    if (auto played = game.play(word); !played)
      std::cout << "illegal move '" << word << "': " << played.error().message << "\n";
  }
  std::cout << "\n" << game.diagram();
  const Outcome o = game.outcome();
  if (o == Outcome::draw)
    std::cout << "result: draw\n";
  else {
    const Side winner = o == Outcome::first_wins ? Side::first : Side::second;
    std::cout << "result: " << (winner == human ? "you win" : "the bot wins") << " ("
              << game.notation() << ")\n";
  }
  return 0;
}

// bench: a fixed search over fixed positions; the node total is the signature.
// With `standard`, the gomoku positions are searched again under the
// standard rule (exactly five wins), reported apart from the total.
int run_bench(int depth_cap, int movetime_ms, bool standard) {
  std::uint64_t total_nodes = 0;
  double total_seconds = 0;
  auto sets = tools::bench_sets();
  const std::size_t counted = sets.size();
  if (standard)
    for (const auto& set : tools::bench_sets())
      if (std::string(set.variant) == "gomoku")
        sets.push_back({"gomoku-standard", set.depth, set.positions});
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const auto& set = sets[i];
    if (i == counted)
      std::printf("total nodes %llu  time %.3f s  %.0f nodes/s\n",
                  static_cast<unsigned long long>(total_nodes), total_seconds,
                  static_cast<double>(total_nodes) / total_seconds);
    const Variant v = *Variant::parse(set.variant);
    Searcher searcher(v, {}, 16);
    std::uint64_t nodes = 0;
    const auto start = Clock::now();
    for (const char* text : set.positions) {
      const Game game = *Game::parse(v, text);
      searcher.clear();
      Limits limits;
      limits.depth = depth_cap > 0 ? std::min(depth_cap, set.depth) : set.depth;
      nodes += searcher.search(game, limits).nodes;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (i < counted) {
      total_nodes += nodes;
      total_seconds += seconds;
    }
    std::printf("%-15s positions %3zu  depth %2d  nodes %12llu  time %7.3f s  %10.0f nodes/s\n",
                set.variant, set.positions.size(), set.depth,
                static_cast<unsigned long long>(nodes), seconds,
                static_cast<double>(nodes) / seconds);
  }
  if (sets.size() == counted)
    std::printf("total nodes %llu  time %.3f s  %.0f nodes/s\n",
                static_cast<unsigned long long>(total_nodes), total_seconds,
                static_cast<double>(total_nodes) / total_seconds);
  if (movetime_ms > 0) {
    // Depth reached in a fixed time on gomoku's middle games.
    const Variant v = Variant::gomoku();
    Searcher searcher(v, {}, 64);
    for (const auto& set : tools::bench_sets()) {
      if (std::string(set.variant) != "gomoku") continue;
      for (const char* text : set.positions) {
        const Game game = *Game::parse(v, text);
        searcher.clear();
        Limits limits;
        limits.time = std::chrono::milliseconds(movetime_ms);
        int depth = 0;
        std::uint64_t nodes = 0;
        double seconds = 0;
        searcher.search(game, limits, [&](const SearchInfo& info) {
          depth = info.depth;
          nodes = info.nodes;
          seconds = std::chrono::duration<double>(info.elapsed).count();
        });
        std::printf("gomoku %-40s depth %2d in %d ms  %10.0f nodes/s\n", text, depth, movetime_ms,
                    seconds > 0 ? static_cast<double>(nodes) / seconds : 0.0);
      }
    }
  }
  return 0;
}

// A score as a person reads it: "win 7" / "loss 4" (plies to the end) or
// the heuristic value, both from the side to move's view.
std::string describe_score(Score s) {
  if (!is_mate_score(s)) return std::to_string(s);
  return (s > 0 ? "win " : "loss ") + std::to_string(mate_plies(s));
}

// analyse: the bot's search on positions read from standard input, one a
// line: best move, score, depth, nodes and principal variation.
int run_analyse(const Variant& v, const Limits& limits, std::size_t tt_mb) {
  Searcher searcher(v, {}, tt_mb);
  return each_position(v, [&](const std::string& shown, const Game& game) {
    searcher.clear();
    const SearchResult r = searcher.search(game, limits);
    std::cout << shown << ' ' << format_move(v, r.best) << ' ' << describe_score(r.score)
              << " depth " << r.depth << " nodes " << r.nodes << " pv " << format_moves(v, r.pv)
              << '\n';
  });
}

// find-tactics: the tactics suite's candidate lines from game records on
// standard input (JSON lines with a "moves" field, as the arena writes them,
// or one game's moves a line), every position of every game classified by
// tactics_suite.h. A game gives at most one VCF line of each length and one
// hold line, so that the lines come from many games; a position met twice is
// written once. With --lengthen-from, each VCF position that long or longer
// (one a length a game) is also made longer (tools::lengthen, up to 29
// plies), the results capped per length as the others. Each line ends with
// the record and ply it came from.
int run_find_tactics(std::uint64_t budget, int per_length, int holds_wanted, int lengthen_from) {
  const Variant v = Variant::gomoku();
  VcfSolver solver(v);
  std::set<std::uint64_t> seen;
  std::map<int, int> vcfs, lengthened;  // lines written per length
  int holds = 0, record = 0;
  std::string line;
  while (std::getline(std::cin, line)) {
    ++record;
    std::string moves = line;
    if (const auto at = line.find("\"moves\":\""); at != std::string::npos) {
      if (line.find("\"variant\":\"gomoku\"") == std::string::npos) continue;
      moves = line.substr(at + 9, line.find('"', at + 9) - (at + 9));
    } else {
      std::istringstream fields(line);
      fields >> moves;
    }
    const auto played = Game::parse(v, moves);
    if (!played) {
      std::cerr << "record " << record << ": " << played.error().describe() << "\n";
      continue;
    }
    Game game(v);
    std::set<int> lengths;  // this game's VCF lines
    bool held = false;
    for (const Cell next : played->moves()) {
      if (game.over()) break;
      if (seen.insert(game.key()).second) {
        if (const auto t = tools::classify(solver, game, budget)) {
          auto write = [&](const tools::Tactic& tactic, const char* how) {
            std::cout << tools::format_tactic(v, tactic) << "  # record " << record << ", ply "
                      << game.ply() << how << "\n"
                      << std::flush;
          };
          if (t->kind == tools::Tactic::Kind::hold) {
            if (!held && (holds_wanted == 0 || holds < holds_wanted)) {
              write(*t, "");
              held = true;
              ++holds;
            }
          } else if (lengths.insert(t->plies).second) {
            if (per_length == 0 || vcfs[t->plies] < per_length) {
              write(*t, "");
              ++vcfs[t->plies];
            }
            if (lengthen_from && t->plies >= lengthen_from)
              if (const auto longer = tools::lengthen(solver, game, 29, budget))
                if (const auto l = tools::classify(solver, *longer, budget))
                  if (per_length == 0 || lengthened[l->plies] < per_length) {
                    write(*l, ", lengthened");
                    ++lengthened[l->plies];
                  }
          }
        }
      }
      (void)game.play(next);
    }
  }
  return 0;
}

// tactics: the suite's positions searched as the bots search, each with a
// fresh table and the same limits. A VCF is solved when the search claims a
// win no longer than the shortest VCF and its move starts a win (checked
// with the solver); a hold is held when the search plays the one move.
int run_tactics(const std::string& path, const Limits& limits, std::size_t tt_mb, bool verbose) {
  const Variant v = Variant::gomoku();
  const auto suite = tools::read_tactics(v, path);
  if (!suite) {
    std::cerr << "inarow-engine: " << suite.error().message << "\n";
    return 1;
  }
  Searcher searcher(v, {}, tt_mb);
  VcfSolver solver(v);
  struct Band {
    int positions = 0, solved = 0;
    double seconds = 0, max_seconds = 0;
  };
  // Bands of attacking moves: 1-3, 4-6, 7-9, 10-12, 13-15 (plies 1-5, ..., 25-29).
  std::map<int, Band> bands;
  Band holds;
  for (const tools::Tactic& t : *suite) {
    const Game game = *Game::parse(v, t.moves);
    searcher.clear();
    const SearchResult r = searcher.search(game, limits);
    const double seconds = std::chrono::duration<double>(r.elapsed).count();
    bool ok;
    Band& band = t.kind == tools::Tactic::Kind::hold ? holds : bands[((t.plies + 1) / 2 - 1) / 3];
    if (t.kind == tools::Tactic::Kind::hold) {
      ok = r.best == t.cell;
    } else {
      ok = r.score > kMaxEval && mate_plies(r.score) <= t.plies &&
           tools::starts_a_win(solver, game, r.best, 1'000'000);
    }
    ++band.positions;
    if (ok) {
      ++band.solved;
      band.seconds += seconds;
      band.max_seconds = std::max(band.max_seconds, seconds);
    }
    if (!ok || verbose) {
      const std::string what =
          t.kind == tools::Tactic::Kind::hold
              ? "hold " + format_move(v, t.cell) + (ok ? ": held" : ": not held")
              : "vcf " + std::to_string(t.plies) + (ok ? ": solved" : ": not solved");
      std::printf("line %d: %s, played %s, %s, depth %d, %.3f s\n", t.line, what.c_str(),
                  format_move(v, r.best).c_str(), describe_score(r.score).c_str(), r.depth,
                  seconds);
    }
  }
  auto row = [](const std::string& name, const Band& b) {
    std::printf("%-32s %6d %7d %9.1f %9.1f\n", name.c_str(), b.positions, b.solved,
                b.solved ? 1000 * b.seconds / b.solved : 0.0, 1000 * b.max_seconds);
  };
  std::printf("%-32s %6s %7s %9s %9s\n", "positions", "count", "solved", "mean ms", "max ms");
  Band all;
  for (const auto& [band, b] : bands) {
    const int from = band * 3 + 1, to = band * 3 + 3;
    row("vcf " + std::to_string(from) + "-" + std::to_string(to) + " moves (" +
            std::to_string(2 * from - 1) + "-" + std::to_string(2 * to - 1) + " plies)",
        b);
    all.positions += b.positions;
    all.solved += b.solved;
    all.seconds += b.seconds;
    all.max_seconds = std::max(all.max_seconds, b.max_seconds);
  }
  row("vcf, all", all);
  row("hold", holds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"inarow-engine: solve, analyse, play and benchmark k-in-a-row games"};
  app.require_subcommand(1);

  std::string variant = "tictactoe";
  bool weak = false;
  std::size_t tt_mb = 64;
  auto* solve = app.add_subcommand("solve", "Solve positions read from standard input, one a line");
  solve
      ->add_option("--variant,-v", variant,
                   "tictactoe, connect4, gomoku, gomoku-standard or mnk:M,N,K[,gravity][,exact]")
      ->capture_default_str();
  solve->add_flag("--weak", weak, "Only win/draw/loss; the length is printed as '-'");
  solve->add_option("--tt", tt_mb, "Transposition table size in MiB")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));

  std::string level = "medium", side = "first";
  std::uint64_t seed = 1;
  auto* play = app.add_subcommand("play", "Play a bot in the terminal (moves may be piped in)");
  play->add_option("--variant,-v", variant)->capture_default_str();
  play->add_option("--level,-l", level,
                   "beginner, easy, medium, hard, expert, master or a bot spec")
      ->capture_default_str();
  play->add_option("--side", side, "Your side: first or second")
      ->check(CLI::IsMember({"first", "second"}))
      ->capture_default_str();
  play->add_option("--seed", seed, "Seed for the bot's randomness")->capture_default_str();

  Limits analyse_limits;
  int analyse_ms = -1;  // 1000 unless --depth or --nodes is the limit
  auto* analyse = app.add_subcommand(
      "analyse", "Search positions read from standard input, one a line, as the bots do");
  analyse->add_option("--variant,-v", variant)->capture_default_str();
  analyse
      ->add_option("--movetime", analyse_ms,
                   "Milliseconds a position (0: no time limit; default 1000 unless --depth or "
                   "--nodes is given)")
      ->check(CLI::Range(0, 3600000));
  analyse->add_option("--depth", analyse_limits.depth, "Plies at most (0: no limit)")
      ->check(CLI::Range(0, 400));
  analyse->add_option("--nodes", analyse_limits.nodes, "Nodes at most (0: no limit)");
  analyse->add_option("--tt", tt_mb, "Transposition table size in MiB")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));

  int depth_cap = 0, movetime = 0;
  auto* bench = app.add_subcommand(
      "bench", "Deterministic search over fixed positions: node count and speed");
  bench->add_option("--depth", depth_cap, "Cap every search at this depth (0 = the set's own)");
  bench->add_option("--movetime", movetime,
                    "Also report the depth reached on gomoku in this many ms");
  bool standard = false;
  bench->add_flag("--standard", standard,
                  "Also search the gomoku positions under the standard rule (gomoku-standard), "
                  "outside the total");

  std::string tactics_file = INAROW_SOURCE_DIR "/bench/gomoku/tactics.txt";
  int tactics_ms = -1;
  std::uint64_t tactics_nodes = 0;
  auto* tactics = app.add_subcommand(
      "tactics", "Search the gomoku tactics suite: VCFs solved and single defences held");
  tactics->add_option("--file", tactics_file, "The suite")->capture_default_str();
  tactics
      ->add_option("--movetime", tactics_ms,
                   "Milliseconds a position (0: no time limit; default 1000 unless --nodes "
                   "is given)")
      ->check(CLI::Range(0, 3600000));
  tactics->add_option("--nodes", tactics_nodes, "Nodes a position at most (0: no limit)");
  bool tactics_verbose = false;
  tactics->add_flag("--verbose", tactics_verbose, "A line for every position, not only failures");
  tactics->add_option("--tt", tt_mb, "Transposition table size in MiB")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));

  std::uint64_t find_budget = 5'000'000;
  int per_length = 0, holds_wanted = 0, lengthen_from = 0;
  auto* find_tactics = app.add_subcommand(
      "find-tactics",
      "Write the tactics suite's candidate lines from gomoku game records on standard input");
  find_tactics->add_option("--budget", find_budget, "Nodes a VCF search at most")
      ->capture_default_str();
  find_tactics->add_option("--per-length", per_length, "VCF lines of each length (0: all)")
      ->capture_default_str();
  find_tactics->add_option("--holds", holds_wanted, "Hold lines (0: all)")->capture_default_str();
  find_tactics
      ->add_option("--lengthen-from", lengthen_from,
                   "Also write a longer VCF made from each VCF line this long or longer, up "
                   "to 29 plies (0: none)")
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (*solve) return run_solve(variant_or_exit(variant), weak, tt_mb);
  if (*play) return run_play(variant_or_exit(variant), level, side, seed);
  if (*bench) return run_bench(depth_cap, movetime, standard);
  if (*find_tactics) return run_find_tactics(find_budget, per_length, holds_wanted, lengthen_from);
  if (*tactics) {
    // --nodes alone means those nodes, however long they take (as analyse).
    if (tactics_ms < 0) tactics_ms = tactics_nodes ? 0 : 1000;
    Limits limits;
    limits.time = std::chrono::milliseconds(tactics_ms);
    limits.nodes = tactics_nodes;
    if (tactics_ms == 0 && tactics_nodes == 0) {
      std::cerr << "inarow-engine: tactics needs a limit: --movetime or --nodes\n";
      return 2;
    }
    return run_tactics(tactics_file, limits, tt_mb, tactics_verbose);
  }
  if (*analyse) {
    // --nodes alone means those nodes, however long they take.
    if (analyse_ms < 0) analyse_ms = analyse_limits.depth || analyse_limits.nodes ? 0 : 1000;
    analyse_limits.time = std::chrono::milliseconds(analyse_ms);
    if (analyse_limits.time.count() == 0 && analyse_limits.depth == 0 &&
        analyse_limits.nodes == 0) {
      std::cerr << "inarow-engine: analyse needs a limit: --movetime, --depth or --nodes\n";
      return 2;
    }
    return run_analyse(variant_or_exit(variant), analyse_limits, tt_mb);
  }
  return 0;
}
