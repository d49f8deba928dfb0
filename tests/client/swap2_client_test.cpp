// The console client in a swap2 opening against a real inarow-server: the
// bot, seated first, places three stones; ada, seated second, takes black
// with `choose black`, the players swap, and the bot replies as white.
#include <gtest/gtest.h>

#include <algorithm>

#include "client_process.h"

namespace inarow::client::testing {
namespace {

class Swap2ClientTest : public ClientConfigs {};

// The next line, whatever it is; empty (and a failure) when none comes.
std::string next(ClientProcess& c) {
  auto line = c.next_line(15s);
  EXPECT_TRUE(line) << "no line; transcript:\n" << c.transcript();
  return line.value_or("");
}

// A name as the client writes it in a line.
std::string quoted(const std::string& name) {
  return name.find(' ') == std::string::npos ? name : "\"" + name + "\"";
}

TEST_F(Swap2ClientTest, AgainstABotTheChooserTakesBlackAndTheBotRepliesAsWhite) {
  ServerProcess server(":memory:");
  ClientProcess ada(server.url(), "ada", config("ada"));
  for (const char* line :
       {"bot gomoku-swap2 beginner second", "wait turn", "choose second x", "choose black",
        "wait turn", "board", "choose white", "resign", "wait end", "quit"}) {
    ada.send(line);
  }
  const std::string started = expect_line(ada, "started ");
  const std::string id = field(started, "match").value_or("?");
  const std::string bot = field(started, "first").value_or("?");
  EXPECT_EQ(started, "started match=" + id +
                         " variant=gomoku-swap2 kind=bot rated=yes time=untimed first=" +
                         quoted(bot) + " second=ada you=second");
  EXPECT_EQ(next(ada), "turn match=" + id + " side=first you=no opening=place-three stone=first");

  // The bot's three stones, X O X, all placed by the player seated first.
  std::vector<std::string> cells;
  for (int ply = 1; ply <= 3; ++ply) {
    const std::string move = next(ada);
    const std::string stone = ply % 2 == 1 ? "first" : "second";
    cells.push_back(field(move, "move").value_or("?"));
    EXPECT_EQ(move, "move match=" + id + " seq=" + std::to_string(ply + 1) +
                        " ply=" + std::to_string(ply) + " side=" + stone + " move=" + cells.back());
    EXPECT_EQ(next(ada),
              ply < 3 ? "turn match=" + id + " side=first you=no opening=place-three stone=" +
                            (ply % 2 == 1 ? "second" : "first")
                      : "turn match=" + id + " side=second you=yes opening=choose stone=second");
  }

  // A bad line is refused by the client; then black is taken, and the
  // players swap: ada holds X, the bot O, and the bot moves.
  EXPECT_EQ(next(ada),
            "error code=BAD_COMMAND message=\"choose first (black, X), choose second "
            "(white, O) or choose two (two more stones)\"");
  EXPECT_EQ(next(ada), "opening-chosen match=" + id +
                           " seq=5 by=second choice=first swapped=yes you=first first=ada second=" +
                           quoted(bot));
  EXPECT_EQ(next(ada), "turn match=" + id + " side=second you=no");
  const std::string reply = next(ada);
  cells.push_back(field(reply, "move").value_or("?"));
  EXPECT_EQ(reply, "move match=" + id + " seq=6 ply=4 side=second move=" + cells.back());
  EXPECT_EQ(std::count(cells.begin(), cells.end(), cells.back()), 1);  // a free cell
  EXPECT_EQ(next(ada), "turn match=" + id + " side=first you=yes");

  // `board`: the stones keep their marks by ply (X, O, X, then the bot's O).
  int xs = 0;
  int os = 0;
  int last = 0;
  for (int row = 0; row < 17; ++row) {  // the column letters, 15 rows, the letters
    const std::string line = next(ada);
    EXPECT_EQ(line.rfind("board ", 0), 0u) << line;
    xs += static_cast<int>(std::count(line.begin(), line.end(), 'X'));
    os += static_cast<int>(std::count(line.begin(), line.end(), 'O'));
    last += line.find("[O]") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(xs, 2);
  EXPECT_EQ(os, 2);
  EXPECT_EQ(last, 1);  // the bot's reply is the last move
  EXPECT_EQ(next(ada), "turn match=" + id + " side=first you=yes");

  // No choice is pending any more: refused here, nothing sent.
  EXPECT_EQ(next(ada), "error code=NO_CHOICE message=\"no choice to make: the opening is over\"");
  EXPECT_EQ(next(ada),
            "ended match=" + id + " result=second-wins reason=resignation you=lost line=-");
  EXPECT_EQ(ada.wait_exit(), 0);
}

}  // namespace
}  // namespace inarow::client::testing
