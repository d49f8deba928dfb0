// inarow-arena and pbrain-inarow as processes: the brain over pipes, the
// arena running it as an external engine, engines that hang, crash or play
// illegal moves, and the arena's command line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>

#include "inarow/arena/record.h"
#include "inarow/arena/report.h"
#include "inarow/arena/subprocess.h"
#include "inarow/arena/tournament.h"
#include "inarow/testing/temp_dir.h"

namespace inarow::arena {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using inarow::testing::read_file;

std::string read_reply(Subprocess& p) {
  std::string line;
  const auto st = p.read_line(line, Subprocess::Clock::now() + 10s);
  EXPECT_EQ(st, Subprocess::ReadStatus::line);
  return line;
}

TEST(PbrainProcess, PlaysAScriptedGame) {
  std::string error;
  auto brain = Subprocess::spawn({PBRAIN_INAROW_EXE, "--bot", "depth=2", "--k", "4"}, &error);
  ASSERT_TRUE(brain) << error;
  brain->write_line("START 7");
  EXPECT_EQ(read_reply(*brain), "OK");
  brain->write_line("INFO timeout_turn 2000");
  brain->write_line("ABOUT");
  EXPECT_NE(read_reply(*brain).find("name=\"inarow\""), std::string::npos);
  // The opponent stacks a column at x = 0 (rows from the top: 6, 5, 4). By
  // its fourth move the brain has either won or blocked the column at y = 3.
  const auto v = *Variant::parse("mnk:7,7,4");
  Game game(v);
  auto play = [&](const std::string& xy) {
    int x = -1, y = -1;
    ASSERT_EQ(std::sscanf(xy.c_str(), "%d,%d", &x, &y), 2) << xy;
    ASSERT_TRUE(game.play(v.cell(x, v.height - 1 - y))) << "illegal " << xy;
  };
  brain->write_line("BEGIN");
  std::string own = read_reply(*brain);
  play(own);
  for (const char* turn : {"0,6", "0,5", "0,4"}) {
    if (game.over()) break;
    brain->write_line(std::string("TURN ") + turn);
    play(turn);
    own = read_reply(*brain);
    play(own);
  }
  EXPECT_TRUE(game.outcome() == Outcome::first_wins || own == "0,3") << game.notation();
  brain->write_line("END");
  brain->stop(2000ms);
}

TournamentConfig external_config(const std::string& engine, int games) {
  TournamentConfig cfg;
  cfg.variant = *Variant::parse("mnk:7,7,4");
  cfg.participants.push_back(*Participant::parse(engine));
  cfg.participants.push_back(*Participant::parse("ref:depth=1"));
  cfg.games_per_pairing = games;
  cfg.concurrency = 2;
  cfg.openings = {.count = 4, .plies = 2, .depth = 1, .seed = 0};
  cfg.time.per_move = 3000ms;
  cfg.time.hang = 3000ms;
  return cfg;
}

TEST(ArenaExternal, RunsPbrainInarowAsAnEngine) {
  auto cfg =
      external_config(std::string("brain:pbrain:") + PBRAIN_INAROW_EXE + " --bot depth=2 --k 4", 4);
  const auto r = run_tournament(cfg);
  ASSERT_TRUE(r) << r.error().message;
  const auto& s = r->standings;
  EXPECT_EQ(s.done_games, 4);
  EXPECT_EQ(s.by_reason[int(Termination::crash)], 0);
  EXPECT_EQ(s.by_reason[int(Termination::timeout)], 0);
  EXPECT_EQ(s.by_reason[int(Termination::illegal)], 0);
  for (const auto& g : r->games) {
    EXPECT_TRUE(g.reason == Termination::line || g.reason == Termination::full_board);
    EXPECT_GT(g.plies, 6);
    // Every move replays legally.
    EXPECT_TRUE(Game::parse(cfg.variant, g.moves)) << g.moves;
  }
  // Depth 2 beats depth 1 more often than not.
  EXPECT_GE(s.pairings[0].games.score(), 0.5);
}

TEST(ArenaExternal, HangingCrashingAndIllegalEnginesLose) {
  struct Case {
    const char* command;
    Termination reason;
  };
  const Case cases[] = {
      {"sh -c 'read l; echo OK; sleep 30'", Termination::timeout},
      {"sh -c 'read l; echo OK; read l; exit 3'", Termination::crash},
      {"sh -c 'read l; echo OK; while read l; do echo 99,99; done'", Termination::illegal},
      {"/nonexistent/engine", Termination::crash},
  };
  for (const auto& c : cases) {
    auto cfg = external_config(std::string("bad:pbrain:") + c.command, 2);
    cfg.time.per_move = 300ms;
    cfg.time.hang = 1000ms;
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = run_tournament(cfg);
    ASSERT_TRUE(r) << c.command;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s) << c.command;
    EXPECT_EQ(r->standings.done_games, 2) << c.command;
    EXPECT_EQ(r->standings.by_reason[int(c.reason)], 2) << c.command;
    EXPECT_EQ(r->standings.pairings[0].games.losses, 2) << c.command;
  }
}

// A brain that chats (MESSAGE, DEBUG) and complains (ERROR) before each of
// its moves plays on: none of those lines is a move.
TEST(ArenaExternal, ChatterAndErrorsBeforeAMoveAreNotMoves) {
  const std::string brain = std::string("sh -c '") + PBRAIN_INAROW_EXE +
                            " --bot depth=1 --k 4 | sed -u \"s/^[0-9]*,[0-9]*$/MESSAGE thinking\\n"
                            "DEBUG x\\nERROR Unknown command: 12\\n&/\"'";
  auto cfg = external_config("chatty:pbrain:" + brain, 2);
  const auto r = run_tournament(cfg);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->standings.done_games, 2);
  for (const auto& g : r->games) {
    EXPECT_TRUE(g.reason == Termination::line || g.reason == Termination::full_board) << g.detail;
    EXPECT_TRUE(Game::parse(cfg.variant, g.moves)) << g.moves;
  }
}

// A brain that answers its turn with ERROR and nothing else never moved: it
// loses on time, and the record says what it answered.
TEST(ArenaExternal, AnErrorInsteadOfAMoveLosesOnTime) {
  auto cfg = external_config(
      "sulky:pbrain:sh -c 'read l; echo OK; while read l; do case \"$l\" in "
      "TURN*|BEGIN|DONE) echo \"ERROR Unknown command\";; esac; done'",
      2);
  cfg.time.per_move = 300ms;
  cfg.time.hang = 1000ms;
  const auto r = run_tournament(cfg);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->standings.by_reason[int(Termination::timeout)], 2);
  EXPECT_EQ(r->standings.by_reason[int(Termination::illegal)], 0);
  EXPECT_EQ(r->standings.pairings[0].games.losses, 2);
  for (const auto& g : r->games)
    EXPECT_NE(g.detail.find("ERROR Unknown command"), std::string::npos) << g.detail;
}

int run(const std::string& command) {
  const int status = std::system((command + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ArenaCli, BadFlagsExitTwoAndHelpZero) {
  const std::string arena = INAROW_ARENA_EXE;
  EXPECT_EQ(run(arena + " --help"), 0);
  EXPECT_EQ(run(arena + " tune --help"), 0);
  EXPECT_EQ(run(arena + " --no-such-flag"), 2);
  EXPECT_EQ(run(arena + " -e easy -e medium --games many"), 2);
  EXPECT_EQ(run(arena + " -e easy -e nosuchlevel"), 2);
  EXPECT_EQ(run(arena + " -e easy -e medium --variant chess"), 2);
  EXPECT_EQ(run(arena + " -e easy -e medium --sprt elo0=5,elo1=0"), 2);
  EXPECT_EQ(run(arena + " -e easy"), 2);
  EXPECT_EQ(run(std::string(PBRAIN_INAROW_EXE) + " --k 99"), 2);
}

TEST(ArenaCli, TournamentTuneAndCalibrateWriteTheirFiles) {
  const inarow::testing::TempDir temp;
  const fs::path& dir = temp.path();
  const std::string arena = INAROW_ARENA_EXE;
  const auto json = (dir / "t.json").string(), record = (dir / "t.jsonl").string();
  ASSERT_EQ(
      run(arena +
          " -v connect4 -e depth=1 -e depth=2 -n 4 -j 2 --openings 2 --opening-depth 1 --json " +
          json + " --record " + record),
      0);
  EXPECT_NE(read_file(json).find("\"pentanomial\""), std::string::npos);
  std::istringstream lines(read_file(record));
  int n = 0;
  for (std::string l; std::getline(lines, l);)
    n += !l.empty();
  EXPECT_EQ(n, 4);
  // Running it again resumes: nothing left to play, the same totals.
  ASSERT_EQ(
      run(arena +
          " -v connect4 -e depth=1 -e depth=2 -n 4 -j 2 --openings 2 --opening-depth 1 --json " +
          json + " --record " + record),
      0);
  EXPECT_NE(read_file(json).find("\"resumed\": 4"), std::string::npos);

  const auto w = (dir / "w.txt").string(), plot = (dir / "w.svg").string(),
             hist = (dir / "w.csv").string();
  ASSERT_EQ(run(arena + " tune -v connect4 --iterations 3 --depth 1 -j 1 -o " + w + " --plot " +
                plot + " --history " + hist),
            0);
  EXPECT_NE(read_file(w).find("w3 = "), std::string::npos);
  EXPECT_EQ(read_file(plot).rfind("<svg", 0), 0u);
  EXPECT_NE(read_file(hist).find("iteration,w1,w2,w3"), std::string::npos);

  // Any weights by key, a node limit, per-key steps; a bad key or step is
  // a usage error.
  ASSERT_EQ(run(arena + " tune -v gomoku --params tempo,four --c-end tempo=5 --r-end 0.01,0.02 " +
                "--nodes 1000 --iterations 1 -j 1 --openings 2 --opening-plies 3 -o " + w +
                " --history " + hist),
            0);
  EXPECT_EQ(read_file(hist).rfind("iteration,tempo,four\n", 0), 0u) << read_file(hist);
  EXPECT_NE(read_file(w).find("tempo = "), std::string::npos);
  for (const char* bad : {"--params bogus", "--params w5", "--c-end w9=1", "--c-end 1,x",
                          "--params w1,w2 --c-end 1,2,3", "--r-end tempo=-1", "--c-end ,"})
    EXPECT_EQ(run(arena + " tune -v gomoku --iterations 1 --nodes 100 -o " + w + " " + bad), 2)
        << bad;

  // The tuner's own check: tuned against start weights by SPRT.
  ASSERT_EQ(run(arena + " tune -v connect4 --iterations 2 --depth 1 -j 2 --openings 2 -o " + w +
                " --sprt elo0=0,elo1=50 --sprt-games 8"),
            0);
  EXPECT_TRUE(fs::exists(w + ".start.txt"));

  const auto ladder = (dir / "levels.txt").string();
  const auto ladder_json = (dir / "levels.json").string();
  ASSERT_EQ(
      run(arena + " calibrate -v connect4 --levels beginner,medium -n 4 -j 2 --openings 2 -o " +
          ladder + " --json " + ladder_json),
      0);
  EXPECT_NE(read_file(ladder_json).find("\"level\": \"medium\""), std::string::npos);
  const auto text = read_file(ladder);
  EXPECT_NE(text.find("beginner"), std::string::npos);
  EXPECT_NE(text.find("medium"), std::string::npos);

  // --neighbours: four levels, each against the next two, make five
  // pairings of two games (a round robin would make six).
  ASSERT_EQ(run(arena +
                " calibrate -v tictactoe --levels beginner,easy,medium,hard --neighbours -n 2 "
                "--openings 1 -q -o " +
                ladder + " --json " + ladder_json),
            0);
  EXPECT_NE(read_file(ladder_json).find("\"games\": 10,"), std::string::npos)
      << read_file(ladder_json);

  // A level with options, named, among plain ones: its comma is not a
  // level's. Three rungs, so three pairings of two games.
  ASSERT_EQ(run(arena +
                " calibrate -v tictactoe --levels beginner,shallow:hard,depth=1,noise=0,medium "
                "--neighbours -n 2 --openings 1 -q -o " +
                ladder + " --json " + ladder_json),
            0);
  const auto named = read_file(ladder_json);
  EXPECT_NE(named.find("\"games\": 6,"), std::string::npos) << named;
  EXPECT_NE(named.find("\"level\": \"shallow\""), std::string::npos) << named;
  EXPECT_EQ(named.find("depth=1"), std::string::npos) << named;
}

TEST(ArenaCli, OrderReadsRecordsAndSaysWhereTheMovesCame) {
  const inarow::testing::TempDir temp;
  const fs::path& dir = temp.path();
  const std::string arena = INAROW_ARENA_EXE;
  // The centre, the one candidate of the empty board; then a far corner.
  GameRecord g;
  g.variant = "gomoku";
  g.moves = "h8a1";
  g.result = Outcome::draw;
  g.reason = Termination::line;
  const auto records = (dir / "r.jsonl").string(), out = (dir / "out.txt").string();
  {
    std::ofstream f(records);
    f << record_line(g, "t") << "\n";
  }
  // run() sends the output away: the shell inside keeps it.
  ASSERT_EQ(run("sh -c '" + arena + " order --records " + records + " > " + out + "'"), 0);
  const std::string text = read_file(out);
  EXPECT_NE(text.find("2 quiet positions from 1 games"), std::string::npos) << text;
  EXPECT_NE(text.find("played move in the first  1:  50.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("not a candidate: 50.0%"), std::string::npos) << text;
  // No such file, no gomoku game in it, a bad weights file, no --records.
  EXPECT_EQ(run(arena + " order --records " + (dir / "none.jsonl").string()), 2);
  EXPECT_EQ(run(arena + " order -v connect4 --records " + records), 2);
  EXPECT_EQ(run(arena + " order --records " + records + " --weights " + records), 2);
  EXPECT_EQ(run(arena + " order"), 2);
}

TEST(ArenaCli, OrderFitWritesTheWeights) {
  const inarow::testing::TempDir temp;
  const fs::path& dir = temp.path();
  const std::string arena = INAROW_ARENA_EXE;
  auto write_record = [&](const std::string& name, const std::string& moves) {
    GameRecord g;
    g.variant = "gomoku";
    g.moves = moves;
    g.result = Outcome::draw;
    g.reason = Termination::line;
    const auto path = (dir / name).string();
    std::ofstream(path) << record_line(g, "t") << "\n";
    return path;
  };
  // A quiet game of ten stones: choices to fit, but none of the terms on
  // as many candidates as --min-count asks, so the file is the start's.
  const auto game = write_record("game.jsonl", "h8i9i8g8h9h10g9j9f10k10");
  const auto out = (dir / "fitted.txt").string(), log = (dir / "log.txt").string();
  ASSERT_EQ(run("sh -c '" + arena + " order --fit --min-count 100000 --records " + game + " -o " +
                out + " > " + log + "'"),
            0);
  const std::string text = read_file(log);
  EXPECT_NE(text.find("Move order fit on gomoku: "), std::string::npos) << text;
  EXPECT_NE(text.find("from 1 games"), std::string::npos) << text;
  EXPECT_NE(text.find("  fitted:\n"), std::string::npos) << text;
  EXPECT_NE(text.find("wrote " + out), std::string::npos) << text;
  const auto fitted = Weights::parse(Variant::gomoku(), read_file(out));
  ASSERT_TRUE(fitted) << fitted.error().describe();
  EXPECT_EQ(*fitted, Weights::defaults(Variant::gomoku()));
  // With every term that occurs fitted, they move.
  ASSERT_EQ(run(arena + " order --fit --min-count 1 --records " + game + " -o " + out), 0);
  const auto moved = Weights::parse(Variant::gomoku(), read_file(out));
  ASSERT_TRUE(moved) << moved.error().describe();
  EXPECT_NE(moved->order, Weights::defaults(Variant::gomoku()).order);
  // No choice in the games (the centre alone, then a corner); the shapes
  // off; a bad --min-count.
  EXPECT_EQ(
      run(arena + " order --fit --records " + write_record("none.jsonl", "h8a1") + " -o " + out),
      1);
  const auto windows = (dir / "windows.txt").string();
  std::ofstream(windows) << "eval = windows\n";
  EXPECT_EQ(run(arena + " order --fit --records " + game + " --weights " + windows + " -o " + out),
            2);
  EXPECT_EQ(run(arena + " order --fit --min-count -1 --records " + game), 2);
}

// texel --labels: positions with their own chances (a stronger engine's
// view) instead of game results; a term in fewer than --min-count of them
// is named and keeps its weight; a bad file is a usage error naming the line.
TEST(ArenaCli, TexelFitsLabelledPositions) {
  const inarow::testing::TempDir temp;
  const fs::path& dir = temp.path();
  const std::string arena = INAROW_ARENA_EXE;
  const auto labels = (dir / "labels.txt").string(), out = (dir / "fitted.txt").string(),
             log = (dir / "log.txt").string();
  {
    std::ofstream file(labels);
    file << "# first player's chances\n";
    // Quiet positions around the centre, the first player's the better.
    const char* const positions[] = {"h8i9h9",        "h8i9h9i10",      "h8i9h9i10g8",
                                     "h8i9h9i10g8j7", "h8g7i9j10",      "h8g7i9j10g9",
                                     "h8i8h9i9",      "h8i8h9i9g10j10", "h8j8h9j9h7",
                                     "h8j8h9j9h7h6",  "g7i9h8j10f6k11"};
    for (int i = 0; i < 20; ++i)
      for (const char* p : positions)
        file << p << " " << (std::string_view(p).size() % 4 == 0 ? "0.7" : "0.4") << "\n";
  }
  ASSERT_EQ(run("sh -c '" + arena + " texel -v gomoku --labels " + labels +
                " --iterations 20 --min-count 50 -o " + out + " > " + log + "'"),
            0);
  const std::string text = read_file(log);
  EXPECT_NE(text.find("Texel fit gomoku: "), std::string::npos) << text;
  EXPECT_NE(text.find("kept (fewer than --min-count): "), std::string::npos) << text;
  EXPECT_NE(text.find("double_four"), std::string::npos) << text;
  const auto fitted = Weights::parse(Variant::gomoku(), read_file(out));
  ASSERT_TRUE(fitted) << fitted.error().describe();
  const Weights start = Weights::defaults(Variant::gomoku());
  EXPECT_NE(fitted->by_count, start.by_count);
  EXPECT_EQ(fitted->shapes[9], start.shapes[9]);  // double_four: in none of them
  EXPECT_EQ(fitted->gain_by_count, start.gain_by_count);
  EXPECT_EQ(fitted->order, start.order);

  std::ofstream(labels) << "h8 0.5\nh8i9 1.5\n";
  EXPECT_EQ(run("sh -c '" + arena + " texel -v gomoku --labels " + labels + " -o " + out + " 2> " +
                log + "'"),
            2);
  EXPECT_NE(read_file(log).find("line 2: the first player's chance '1.5'"), std::string::npos)
      << read_file(log);
  EXPECT_EQ(run(arena + " texel -v gomoku --labels " + (dir / "none.txt").string()), 2);
  EXPECT_EQ(run(arena + " texel -v gomoku --labels " + labels + " --records " + labels), 2);
  EXPECT_EQ(run(arena + " texel -v gomoku --labels " + labels + " --min-count -3"), 2);
}

}  // namespace
}  // namespace inarow::arena
