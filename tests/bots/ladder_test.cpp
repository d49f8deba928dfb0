#include "inarow/bots/ladder.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "inarow/bots/bot.h"
#include "inarow/testing/temp_dir.h"

namespace inarow::bots {
namespace {

const std::string kConnect4 = std::string(INAROW_WEIGHTS_DIR) + "/connect4_levels.txt";

// The error of parsing `text`, which must fail.
Error error_of(const std::string& text, std::string_view file_name = {}) {
  const auto ladder = parse_ladder(text, file_name);
  EXPECT_FALSE(ladder) << "parsed: " << text;
  return ladder ? Error{} : ladder.error();
}

TEST(Ladder, ReadsConnectFoursFileAsCalibrateWroteIt) {
  const auto ladder = load_ladder(kConnect4);
  ASSERT_TRUE(ladder) << ladder.error().describe();
  EXPECT_EQ(ladder->variant, "connect4");
  EXPECT_EQ(ladder->games, 400);
  EXPECT_EQ(ladder->anchor(), "beginner");
  // The run before, commented out below the ladder, is not read.
  ASSERT_EQ(ladder->rungs.size(), 5u);
  const std::vector<std::tuple<std::string, double, double>> expected = {
      {"beginner", 0.0, 0.0}, {"easy", 283.9, 68.1},   {"medium", 385.4, 65.3},
      {"hard", 543.7, 67.6},  {"expert", 693.1, 80.1},
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(ladder->rungs[i].level, std::get<0>(expected[i]));
    EXPECT_EQ(ladder->rungs[i].elo, std::get<1>(expected[i]));
    EXPECT_EQ(ladder->rungs[i].margin, std::get<2>(expected[i]));
  }
}

TEST(Ladder, TheBuiltInLaddersAreTheFilesAndEveryOneParses) {
  // Every *_levels.txt the library carries parses and is its file's variant.
  ASSERT_FALSE(built_in_ladder_files().empty());
  for (const LadderFile& f : built_in_ladder_files()) {
    const auto ladder = parse_ladder(f.text, f.name);
    ASSERT_TRUE(ladder) << f.name << ": " << ladder.error().describe();
    EXPECT_EQ(std::string(f.name), ladder->variant + "_levels.txt");
  }
  EXPECT_EQ(built_in_ladders().size(), built_in_ladder_files().size());
  // connect4's is the file in the tree, byte for byte.
  const std::string on_disk = inarow::testing::read_file(kConnect4);
  bool found = false;
  for (const LadderFile& f : built_in_ladder_files())
    if (f.name == "connect4_levels.txt") {
      found = true;
      EXPECT_EQ(f.text, on_disk);
    }
  EXPECT_TRUE(found);
}

TEST(Ladder, MeasuredLevelIsTheBuiltInLine) {
  const auto hard = measured_level("connect4", "hard");
  ASSERT_TRUE(hard);
  EXPECT_EQ(hard->elo, 543.7);
  EXPECT_EQ(hard->margin, 67.6);
  EXPECT_EQ(hard->games, 400);
  EXPECT_EQ(hard->anchor, "beginner");
  const auto beginner = measured_level("connect4", "beginner");
  ASSERT_TRUE(beginner);
  EXPECT_EQ(beginner->elo, 0.0);
  EXPECT_EQ(beginner->anchor, "beginner");
}

TEST(Ladder, AVariantWithoutALadderOrALevelItLeavesOutIsNotMeasured) {
  EXPECT_FALSE(measured_level("tictactoe", "hard"));
  EXPECT_FALSE(measured_level("mnk:9,9,4", "hard"));
  EXPECT_FALSE(measured_level("Connect4", "hard"));  // names are exact
  // connect4's run left master out for time.
  EXPECT_FALSE(measured_level("connect4", "master"));
  EXPECT_FALSE(measured_level("connect4", "wizard"));
}

// The shipped gomoku ladder measures all six of gomoku's own presets, and
// what calibrate called "monotone with clear gaps" holds of the built-in
// data: each level above the one before by more than either margin.
TEST(Ladder, GomokusLadderIsMonotoneWithClearGaps) {
  const Variant gomoku = Variant::gomoku();
  std::optional<LevelMeasure> below;
  for (const Level& l : levels(gomoku)) {
    const auto m = measured_level("gomoku", l.name);
    ASSERT_TRUE(m) << l.name;
    EXPECT_EQ(m->anchor, "beginner");
    EXPECT_EQ(m->games, 540);  // calibrate -n 60 --neighbours
    if (below) {
      EXPECT_GT(m->elo - below->elo, std::max(m->margin, below->margin)) << l.name;
    }
    below = m;
  }
}

TEST(Ladder, AMissingFileCannotBeRead) {
  const auto ladder = load_ladder("/nonexistent/connect4_levels.txt");
  ASSERT_FALSE(ladder);
  EXPECT_EQ(ladder.error().code, ErrorCode::cannot_read);
  EXPECT_EQ(ladder.error().message, "cannot read ladder file '/nonexistent/connect4_levels.txt'");
}

TEST(Ladder, WithoutAHeaderTheFileNamesTheVariantAndGamesAreZero) {
  const inarow::testing::TempDir dir;
  // The file's name says the variant.
  const auto path =
      dir.write("gomoku_levels.txt", "beginner 0 0\r\n\n  easy\t120.5  40\n").string();
  const auto ladder = load_ladder(path);
  ASSERT_TRUE(ladder) << ladder.error().describe();
  EXPECT_EQ(ladder->variant, "gomoku");
  EXPECT_EQ(ladder->games, 0);
  ASSERT_EQ(ladder->rungs.size(), 2u);
  EXPECT_EQ(ladder->rungs[1].level, "easy");
  EXPECT_EQ(ladder->rungs[1].elo, 120.5);
  EXPECT_EQ(ladder->rungs[1].margin, 40.0);
  // Nothing names it: an empty variant.
  const auto bare = parse_ladder("medium 0 0\n");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->variant, "");
  EXPECT_EQ(bare->anchor(), "medium");
}

TEST(Ladder, AVariantsNameMayHoldCommas) {
  const auto ladder = parse_ladder(
      "# measured Elo of the bot levels: variant mnk:9,9,4, 60 games, weakest level = 0\n"
      "easy 0.0 0.0\nhard 10 5\n",
      "mnk:9,9,4_levels.txt");
  ASSERT_TRUE(ladder) << ladder.error().describe();
  EXPECT_EQ(ladder->variant, "mnk:9,9,4");
  EXPECT_EQ(ladder->games, 60);
}

TEST(Ladder, AGarbageLineIsAnErrorNamingIt) {
  const std::string header = "# measured Elo of the bot levels: variant connect4, 40 games\n";
  Error e = error_of(header + "beginner 0 0\nthis is not a level line\n");
  EXPECT_EQ(e.code, ErrorCode::bad_syntax);
  EXPECT_EQ(e.offset, header.size() + 13);
  EXPECT_EQ(e.message, "line 3: expected 'level elo margin', found 'this is not a level line'");

  EXPECT_EQ(error_of("beginner 0 0\neasy 12x 3\n").message, "line 2: '12x' is not an Elo");
  EXPECT_EQ(error_of("beginner 0 0\neasy 12 -3\n").message, "line 2: '-3' is not a margin");
  EXPECT_EQ(error_of("beginner 0 0\neasy 12 nan\n").message, "line 2: 'nan' is not a margin");
  EXPECT_EQ(error_of("beginner 0 0\neasy 12 3 4\n").message,
            "line 2: expected 'level elo margin', found 'easy 12 3 4'");
  EXPECT_EQ(error_of("beginner 0 0\nwizard 12 3\n").message, "line 2: unknown level 'wizard'");
  EXPECT_EQ(error_of("beginner 0 0\nbeginner 12 3\n").message,
            "line 2: level 'beginner' is listed twice");
  EXPECT_EQ(error_of("easy 12 3\n").message, "line 1: the first level is the anchor, at 0, not 12");
  // A comment starts at the line's start.
  EXPECT_EQ(error_of(" # indented comment\nbeginner 0 0\n").message, "line 1: unknown level '#'");
  EXPECT_EQ(error_of("# measured Elo of the bot levels: variant connect4, many games\n").message,
            "line 1: 'many' is not a number of games");
  EXPECT_EQ(error_of(header + "beginner 0 0\n" + header).message,
            "line 3: a second header: a file holds one ladder");
}

TEST(Ladder, NoLevelsOrAnotherVariantsHeaderIsAnError) {
  EXPECT_EQ(error_of("# only comments\n\n").message, "no levels listed");
  EXPECT_EQ(error_of("").message, "no levels listed");
  const Error e = error_of(
      "# measured Elo of the bot levels: variant gomoku, 40 games\n"
      "beginner 0 0\n",
      "connect4_levels.txt");
  EXPECT_EQ(e.code, ErrorCode::bad_syntax);
  EXPECT_EQ(e.message, "the header's variant gomoku is not the file's, connect4");
}

}  // namespace
}  // namespace inarow::bots
