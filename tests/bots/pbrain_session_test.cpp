#include "inarow/bots/pbrain_session.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include "inarow/testing/temp_dir.h"

namespace inarow::bots {
namespace {

// Feed lines to a session and collect its answers, one per output line.
class Brain {
 public:
  explicit Brain(const std::string& bot = "depth=2", int k = 4)
      : session_(PbrainOptions{*BotSpec::parse(bot), k, 1}) {}
  std::string say(const std::string& line) {
    std::ostringstream out;
    alive_ = session_.handle(line, out);
    auto s = out.str();
    if (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
  bool alive() const { return alive_; }
  const Game* game() const { return session_.game(); }

 private:
  PbrainSession session_;
  bool alive_ = true;
};

bool is_coords(const std::string& s) {
  int x = -1, y = -1;
  return std::sscanf(s.c_str(), "%d,%d", &x, &y) == 2 && x >= 0 && y >= 0;
}

TEST(Pbrain, ScriptedGame) {
  Brain b;
  EXPECT_EQ(b.say("START 7"), "OK");
  EXPECT_EQ(b.say("INFO timeout_turn 1000"), "");
  EXPECT_EQ(b.say("INFO timeout_match 100000"), "");
  const auto first = b.say("BEGIN");
  EXPECT_TRUE(is_coords(first)) << first;
  ASSERT_NE(b.game(), nullptr);
  EXPECT_EQ(b.game()->ply(), 1);
  // Answer every move with a legal move of its own, then take one back.
  for (int i = 0; i < 3; ++i) {
    std::string reply;
    for (int x = 0; x < 7 && reply.empty(); ++x)
      for (int y = 0; y < 7; ++y)
        if (!b.game()->at(x, 6 - y)) {
          reply = b.say("TURN " + std::to_string(x) + "," + std::to_string(y));
          break;
        }
    EXPECT_TRUE(is_coords(reply)) << reply;
  }
  EXPECT_EQ(b.game()->ply(), 7);
  const Cell last = b.game()->last_move();
  const auto& v = b.game()->variant();
  EXPECT_EQ(b.say("TAKEBACK " + std::to_string(v.col(last)) + "," +
                  std::to_string(v.height - 1 - v.row(last))),
            "OK");
  EXPECT_EQ(b.game()->ply(), 6);
  EXPECT_EQ(b.say("RESTART"), "OK");
  EXPECT_EQ(b.game()->ply(), 0);
  b.say("END");
  EXPECT_FALSE(b.alive());
}

TEST(Pbrain, BoardThenWinsAndBlocks) {
  Brain b;
  ASSERT_EQ(b.say("START 9"), "OK");
  // Own stones at (2..4, 4) with both ends open: the brain completes four.
  b.say("BOARD");
  for (const char* l : {"2,4,1", "0,0,2", "3,4,1", "8,8,2", "4,4,1", "0,8,2"})
    b.say(l);
  const auto win = b.say("DONE");
  EXPECT_TRUE(win == "1,4" || win == "5,4") << win;
  EXPECT_TRUE(b.game()->over());
  // The opponent has three in a column, closed at one end: the brain blocks
  // the other.
  ASSERT_EQ(b.say("RESTART"), "OK");
  b.say("BOARD");
  for (const char* l : {"2,2,2", "2,5,1", "2,3,2", "8,0,1", "2,4,2"})
    b.say(l);
  EXPECT_EQ(b.say("DONE"), "2,1");
}

TEST(Pbrain, RectangularBoardsAndErrors) {
  Brain b("depth=1", 3);
  EXPECT_EQ(b.say("RECTSTART 5,4"), "OK");
  EXPECT_EQ(b.game()->variant().width, 5);
  EXPECT_EQ(b.game()->variant().height, 4);
  EXPECT_EQ(b.say("TURN 9,9").rfind("ERROR", 0), 0u);
  // A y that would overflow when flipped to a row (found by fuzz_pbrain).
  EXPECT_EQ(b.say("TURN 0,-2147483648"), "ERROR bad move '0,-2147483648'");
  EXPECT_EQ(b.say("TAKEBACK 0,-2147483648").rfind("ERROR", 0), 0u);
  EXPECT_EQ(b.game()->ply(), 0);
  EXPECT_EQ(b.say("TAKEBACK 0,0").rfind("ERROR", 0), 0u);
  EXPECT_EQ(b.say("FROBNICATE").rfind("UNKNOWN", 0), 0u);
  EXPECT_NE(b.say("ABOUT").find("name=\"inarow\""), std::string::npos);
  // A time limit past any clock's range is no limit (found by fuzz_pbrain:
  // it overflowed the budget); depth 1 still answers at once.
  EXPECT_EQ(b.say("INFO timeout_turn 9223372036854775807"), "");
  EXPECT_TRUE(is_coords(b.say("BEGIN")));
  EXPECT_EQ(b.game()->ply(), 1);
  Brain c;
  EXPECT_EQ(c.say("BEGIN").rfind("ERROR", 0), 0u);    // no START yet
  EXPECT_EQ(c.say("START 2").rfind("ERROR", 0), 0u);  // too small for k = 4
}

// A turn's own time is lost unless used: under timeout_turn the brain
// searches to the end of its budget (0.9 of the turn less 20 ms: 340 ms of
// 400), not only to the last iteration it expects to finish in time.
TEST(Pbrain, SpendsTheWholeTurnItIsGiven) {
  Brain b("master", 5);
  EXPECT_EQ(b.say("START 15"), "OK");
  EXPECT_EQ(b.say("INFO timeout_turn 400"), "");
  // Quiet openings of the arena's book (k7 j9 e9, g6 g8 k5, h8 i9), the
  // brain to move in each.
  for (const char* stones : {"10,8,2\n9,6,1\n4,6,2", "6,9,2\n6,7,1\n10,10,2", "7,7,1\n8,6,2"}) {
    EXPECT_EQ(b.say("BOARD"), "");
    std::istringstream lines(stones);
    for (std::string line; std::getline(lines, line);)
      EXPECT_EQ(b.say(line), "");
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(is_coords(b.say("DONE")));
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(340)) << stones;
  }
}

}  // namespace
}  // namespace inarow::bots

namespace inarow::bots {
namespace {

// INFO rule 1 (exactly five wins) plays the standard rule. The brain
// (field 1) has 0,0 1,0 2,0 3,0 and 5,0: 4,0 makes six. The manager's
// stones (field 2) 0,5 1,5 2,5 3,5 threaten 4,5, exactly five. Freestyle:
// the brain wins at 4,0. Standard: 4,0 is nothing, so it blocks 4,5.
std::string answer_under_rule(const char* rule) {
  std::ostringstream out;
  PbrainSession s(PbrainOptions{*BotSpec::parse("depth=2"), 5, 1, std::chrono::milliseconds(0)});
  s.handle("START 15", out);
  if (rule) s.handle(std::string("INFO rule ") + rule, out);
  s.handle("BOARD", out);
  for (const char* line :
       {"0,0,1", "0,5,2", "1,0,1", "1,5,2", "2,0,1", "2,5,2", "3,0,1", "3,5,2", "5,0,1", "10,10,2"})
    s.handle(line, out);
  out.str("");
  s.handle("DONE", out);
  EXPECT_EQ(s.game()->variant().name,
            rule && std::string(rule) == "1" ? "gomoku-standard" : "gomoku");
  auto a = out.str();
  if (!a.empty() && a.back() == '\n') a.pop_back();
  return a;
}

TEST(Pbrain, InfoRuleOnePlaysExactlyFive) {
  EXPECT_EQ(answer_under_rule(nullptr), "4,0");
  EXPECT_EQ(answer_under_rule("0"), "4,0");
  EXPECT_EQ(answer_under_rule("4"), "4,0");  // renju alone: not ours, freestyle
  EXPECT_EQ(answer_under_rule("1"), "4,5");
}

// A rule sent after START keeps the stones on the board.
TEST(Pbrain, InfoRuleAfterMovesKeepsThem) {
  std::ostringstream out;
  PbrainSession s(PbrainOptions{*BotSpec::parse("depth=1"), 5, 1, std::chrono::milliseconds(0)});
  s.handle("START 15", out);
  s.handle("TURN 7,7", out);
  ASSERT_EQ(s.game()->ply(), 2);
  s.handle("INFO rule 1", out);
  EXPECT_TRUE(s.game()->variant().exact);
  EXPECT_EQ(s.game()->ply(), 2);
  s.handle("INFO rule 0", out);
  EXPECT_FALSE(s.game()->variant().exact);
  EXPECT_EQ(s.game()->ply(), 2);
}

// A rule the brain's bot cannot play (its weights are freestyle gomoku's)
// is refused with an ERROR line, and the game stays under the old rule.
TEST(Pbrain, InfoRuleTheBotCannotPlayIsAnErrorAndChangesNothing) {
  const inarow::testing::TempDir dir;
  const auto path = dir.write("weights.txt", "variant = gomoku\n");
  std::ostringstream out;
  PbrainSession s(PbrainOptions{*BotSpec::parse("depth=1,weights=" + path.string()), 5, 1,
                                std::chrono::milliseconds(0)});
  s.handle("START 15", out);
  EXPECT_EQ(out.str(), "OK\n");
  s.handle("TURN 7,7", out);
  ASSERT_EQ(s.game()->ply(), 2);
  out.str("");
  s.handle("INFO rule 1", out);
  EXPECT_TRUE(out.str().starts_with("ERROR cannot play rule 1: ")) << out.str();
  EXPECT_EQ(s.game()->variant().name, "gomoku");
  EXPECT_EQ(s.game()->ply(), 2);
  // Still freestyle: the next game starts as one, without an error.
  out.str("");
  s.handle("RESTART", out);
  EXPECT_EQ(out.str(), "OK\n");
  EXPECT_EQ(s.game()->variant().name, "gomoku");
}

}  // namespace
}  // namespace inarow::bots
