// The console client's game history against a real inarow-server: `games`
// lists the finished games with the rating change, `replay` draws a game's
// board at a ply with its moves, `export` prints or writes the text (and
// refuses a .psq for tic-tac-toe); bad numbers and ids get their errors.
#include <gtest/gtest.h>

#include "client_process.h"
#include "inarow/client/command.h"

namespace inarow::client::testing {
namespace {

class HistoryClientTest : public ClientConfigs {};

TEST_F(HistoryClientTest, GamesReplayAndExport) {
  ServerProcess server(":memory:");
  ClientProcess ada(server.url(), "ada", config("ada"));
  ada.send("bot tictactoe easy first");
  const std::string started = expect_line(ada, "started ");
  const std::string id = *field(started, "match");
  ada.send("wait turn");
  ada.send("b2");
  ada.send("wait turn");
  ada.send("resign");
  ada.send("wait end");
  expect_line(ada, "ended ");

  ada.send("games");
  const std::string games = expect_line(ada, "games ");
  EXPECT_EQ(field(games, "count"), "1");
  EXPECT_EQ(field(games, "next"), "");
  const std::string game = expect_line(ada, "game ");
  EXPECT_EQ(field(game, "n"), "1");
  EXPECT_EQ(field(game, "id"), id);
  EXPECT_EQ(field(game, "variant"), "tictactoe");
  EXPECT_EQ(field(game, "first"), "ada");
  EXPECT_EQ(field(game, "result"), "second-wins");
  EXPECT_EQ(field(game, "reason"), "resignation");
  EXPECT_EQ(field(game, "plies"), "2");
  const std::string change = field(game, "change").value_or("");
  ASSERT_FALSE(change.empty());
  EXPECT_EQ(change[0], '-') << game;  // a loss

  // The board after the first move: X on b2 only.
  ada.send("replay 1 1");
  const std::string replay = expect_line(ada, "replay ");
  EXPECT_EQ(field(replay, "id"), id);
  EXPECT_EQ(field(replay, "ply"), "1");
  EXPECT_EQ(field(replay, "plies"), "2");
  const std::string pairs = field(replay, "pairs").value_or("");
  EXPECT_EQ(pairs.rfind("1. b2 ", 0), 0u) << replay;
  const std::string row2 = expect_line(ada, "board 2 ");
  EXPECT_EQ(std::count(row2.begin(), row2.end(), 'X'), 1) << row2;
  EXPECT_EQ(std::count(row2.begin(), row2.end(), 'O'), 0) << row2;

  // One move on, then back past the start (it stops there).
  ada.send("next");
  EXPECT_EQ(field(expect_line(ada, "replay "), "ply"), "2");
  ada.send("prev");
  EXPECT_EQ(field(expect_line(ada, "replay "), "ply"), "1");
  ada.send("prev");
  EXPECT_EQ(field(expect_line(ada, "replay "), "ply"), "0");
  ada.send("prev");
  EXPECT_EQ(field(expect_line(ada, "replay "), "ply"), "0");
  const std::string empty_row = expect_line(ada, "board 2 ");
  EXPECT_EQ(std::count(empty_row.begin(), empty_row.end(), 'X'), 0) << empty_row;

  const fs::path file = dir_.path() / "game.txt";
  ada.send("export 1 " + file.string());
  const std::string exported = expect_line(ada, "exported ");
  EXPECT_EQ(field(exported, "id"), id);
  const std::string text = inarow::testing::read_file(file);
  EXPECT_EQ(text.rfind("Game: " + id + "\nVariant: tictactoe\nFirst: ada\n", 0), 0u) << text;
  EXPECT_NE(text.find("\nPosition: b2"), std::string::npos) << text;
  EXPECT_EQ(field(exported, "bytes"), std::to_string(text.size()));

  ada.send("export 1 psq");
  EXPECT_EQ(field(expect_line(ada, "error "), "code"), "NO_PSQ");
  ada.send("replay 9");
  const std::string no_number = expect_line(ada, "error ");
  EXPECT_EQ(field(no_number, "code"), "BAD_COMMAND");
  EXPECT_EQ(field(no_number, "message"), "no game number 9 in the last games");
  ada.send("replay nope");
  const std::string unknown = expect_line(ada, "error ");
  EXPECT_EQ(field(unknown, "code"), "UNKNOWN_MATCH");
  EXPECT_EQ(field(unknown, "message"), "no game \"nope\"");
  ada.send("games nobody");
  EXPECT_EQ(field(expect_line(ada, "error "), "code"), "UNKNOWN_PLAYER");
  ada.send("quit");
  EXPECT_EQ(ada.wait_exit(), 0);
}

TEST(HistoryCommands, ParseTheirArgumentsOrSayWhatIsWrong) {
  using K = Command::Kind;
  auto games = parse_command("games");
  ASSERT_TRUE(games);
  EXPECT_EQ(games->kind, K::games);
  EXPECT_EQ(games->code, "");
  EXPECT_EQ(parse_command("games p123")->code, "p123");
  EXPECT_FALSE(parse_command("games a b"));
  EXPECT_EQ(parse_command("next")->kind, K::replay_step);
  EXPECT_EQ(parse_command("next")->ply, 1);
  EXPECT_EQ(parse_command("prev")->ply, -1);
  EXPECT_EQ(parse_command("next 2").error(), "next takes no arguments");
  auto replay = parse_command("replay 3 7");
  ASSERT_TRUE(replay);
  EXPECT_EQ(replay->kind, K::replay);
  EXPECT_EQ(replay->code, "3");
  EXPECT_EQ(replay->ply, 7);
  EXPECT_EQ(parse_command("replay m1")->ply, -1);
  EXPECT_EQ(parse_command("replay").error(),
            "replay wants a game id or its number in games, and a ply");
  EXPECT_EQ(parse_command("replay m1 -1").error(), "not a ply: -1");
  EXPECT_EQ(parse_command("replay m1 x").error(), "not a ply: x");
  auto psq = parse_command("export 2 PSQ out.psq");
  ASSERT_TRUE(psq);
  EXPECT_EQ(psq->kind, K::export_game);
  EXPECT_TRUE(psq->psq);
  EXPECT_EQ(psq->file, "out.psq");
  auto text = parse_command("export m1 game.txt");
  ASSERT_TRUE(text);
  EXPECT_FALSE(text->psq);
  EXPECT_EQ(text->file, "game.txt");
  EXPECT_EQ(parse_command("export").error(), "export ID|N [psq] [FILE]");
  EXPECT_EQ(parse_command("export 1 psq f extra").error(), "export ID|N [psq] [FILE]");
}

}  // namespace
}  // namespace inarow::client::testing
