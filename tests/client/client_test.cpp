// The console client against a real inarow-server, both real processes on
// 127.0.0.1, driven through the client's standard input in script mode.
#include <gtest/gtest.h>

#include "client_process.h"
#include "inarow/engine/game.h"
#include "inarow/engine/notation.h"
#include "inarow/engine/variant.h"

namespace inarow::client::testing {
namespace {

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// A seat in a match, played by the test: it follows the client's lines and
// answers each "turn ... you=yes" with the first legal move.
struct Seat {
  ClientProcess& client;
  Game game;
  std::string ended;  // the client's `ended` line, once seen

  Seat(ClientProcess& c, const std::string& variant) : client(c), game(*Variant::parse(variant)) {}

  // Read until it is our turn (then move and return true) or the match ends.
  bool play_one() {
    while (true) {
      auto line = client.expect_if([](const std::string& l) {
        return starts_with(l, "move ") || starts_with(l, "turn ") || starts_with(l, "ended ") ||
               starts_with(l, "state ") || starts_with(l, "error ");
      });
      if (!line) {
        ADD_FAILURE() << "no line from the client; transcript:\n" << client.transcript();
        return false;
      }
      if (starts_with(*line, "error ")) {
        ADD_FAILURE() << *line;
        return false;
      }
      if (starts_with(*line, "move ")) {
        auto played = game.play(*field(*line, "move"));
        EXPECT_TRUE(played.has_value()) << *line;
      } else if (starts_with(*line, "state ")) {
        const std::string moves = *field(*line, "moves");
        game = Game(game.variant());
        std::size_t start = 0;
        while (moves != "-" && start < moves.size()) {
          auto comma = moves.find(',', start);
          if (comma == std::string::npos) comma = moves.size();
          EXPECT_TRUE(game.play(moves.substr(start, comma - start)).has_value());
          start = comma + 1;
        }
      } else if (starts_with(*line, "ended ")) {
        ended = *line;
        return false;
      } else if (field(*line, "you") == "yes") {
        if (game.over()) {
          ADD_FAILURE() << "told to move in a finished game: " << *line;
          return false;
        }
        client.send(format_move(game.variant(), game.legal_moves().front()));
        return true;
      }
    }
  }

  void play_out(int max_moves = 300) {
    for (int i = 0; i < max_moves && play_one(); ++i) {
    }
  }
};

std::string started(ClientProcess& c) {
  auto line = c.expect("started ");
  EXPECT_TRUE(line) << c.transcript();
  return line.value_or("");
}

class ClientTest : public ClientConfigs {};

void play_bot_game(const std::string& variant, const std::string& level, const fs::path& cfg) {
  ServerProcess server(":memory:");
  ClientProcess ada(server.url(), "ada", cfg);
  ada.send("bot " + variant + " " + level + " first");
  const std::string s = started(ada);
  EXPECT_EQ(field(s, "variant"), variant);
  EXPECT_EQ(field(s, "you"), "first");
  EXPECT_EQ(field(s, "first"), "ada");
  Seat seat(ada, variant);
  seat.play_out();
  ASSERT_FALSE(seat.ended.empty()) << ada.transcript();
  const auto reason = field(seat.ended, "reason");
  EXPECT_TRUE(reason == "line" || reason == "board-full") << seat.ended;
  // The server's verdict agrees with the board the client drew.
  const Outcome outcome = seat.game.outcome();
  const std::string result = *field(seat.ended, "result");
  EXPECT_EQ(result, outcome == Outcome::first_wins    ? "first-wins"
                    : outcome == Outcome::second_wins ? "second-wins"
                                                      : "draw")
      << ada.transcript();
  if (reason == "line") {
    EXPECT_NE(field(seat.ended, "line"), "-");
  }
  // A rated match: both rating changes follow.
  EXPECT_TRUE(ada.expect("rating "));
  EXPECT_TRUE(ada.expect("rating "));
  ada.send("quit");
  EXPECT_EQ(ada.wait_exit(), 0);
}

TEST_F(ClientTest, WholeGameAgainstABotInTicTacToe) {
  play_bot_game("tictactoe", "beginner", config("ada"));
}

TEST_F(ClientTest, WholeGameAgainstABotInConnectFour) {
  play_bot_game("connect4", "beginner", config("ada"));
}

TEST_F(ClientTest, WholeGameAgainstABotInGomoku) {
  play_bot_game("gomoku", "easy", config("ada"));
}

TEST_F(ClientTest, WholeGameAgainstABotInACustomGravityVariant) {
  play_bot_game("mnk:5,4,3,gravity", "beginner", config("ada"));
}

// A script written in one go: `wait` makes it deterministic without sleeps.
TEST_F(ClientTest, BadMoveGetsTheServersReasonAndThePromptGoesOn) {
  ServerProcess server(":memory:");
  ClientProcess ada(server.url(), "ada", config("ada"));
  for (const char* line : {"bot tictactoe beginner first", "wait turn", "b2", "wait turn", "b2",
                           "z9", "frobnicate now", "board", "resign", "wait end", "quit"}) {
    ada.send(line);
  }
  auto occupied = ada.expect("error ");
  ASSERT_TRUE(occupied) << ada.transcript();
  EXPECT_EQ(field(*occupied, "code"), "ILLEGAL_MOVE");
  EXPECT_EQ(field(*occupied, "message"), "cell b2 is occupied");
  auto off_board = ada.expect("error ");
  ASSERT_TRUE(off_board);
  EXPECT_EQ(field(*off_board, "code"), "ILLEGAL_MOVE");
  auto unknown = ada.expect("error ");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(field(*unknown, "code"), "BAD_COMMAND");
  // Still our move and the game goes on: the board shows b2 and the reply.
  auto board = ada.expect("board 2 ");
  ASSERT_TRUE(board) << ada.transcript();
  EXPECT_NE(board->find('X'), std::string::npos);
  auto ended = ada.expect("ended ");
  ASSERT_TRUE(ended) << ada.transcript();
  EXPECT_EQ(field(*ended, "reason"), "resignation");
  EXPECT_EQ(ada.wait_exit(), 0);
}

TEST_F(ClientTest, ResignEndsTheMatchWithTheRatingChange) {
  ServerProcess server(":memory:");
  ClientProcess ada(server.url(), "ada", config("ada"));
  ada.send("bot connect4 medium second time 1+1");
  ada.send("wait turn");
  ada.send("4");  // a resignation before both sides moved would be an abort
  ada.send("wait turn");
  ada.send("resign");
  ada.send("wait end");
  ada.close_stdin();  // end of input quits, once the lines before it are done
  const std::string s = started(ada);
  EXPECT_EQ(field(s, "time"), "1+1");
  EXPECT_EQ(field(s, "you"), "second");
  auto move = ada.expect("move ");
  ASSERT_TRUE(move);
  EXPECT_EQ(field(*move, "side"), "first");
  EXPECT_TRUE(field(*move, "first-ms"));  // clocks in every move of a timed match
  auto ended = ada.expect("ended ");
  ASSERT_TRUE(ended) << ada.transcript();
  EXPECT_EQ(field(*ended, "result"), "first-wins");
  EXPECT_EQ(field(*ended, "reason"), "resignation");
  EXPECT_EQ(field(*ended, "you"), "lost");
  auto rating = ada.expect_if(
      [](const std::string& l) { return starts_with(l, "rating ") && field(l, "name") == "ada"; });
  ASSERT_TRUE(rating) << ada.transcript();
  EXPECT_LT(std::stod(*field(*rating, "change")), 0.0);
  EXPECT_EQ(ada.wait_exit(), 0);
}

TEST_F(ClientTest, TwoClientsPlayAPrivateGameByCode) {
  ServerProcess server(":memory:");
  ClientProcess ada(server.url(), "ada", config("ada"));
  ClientProcess bob(server.url(), "bob", config("bob"));
  ada.send("create tictactoe first");
  auto code = ada.expect("private ");
  ASSERT_TRUE(code) << ada.transcript();
  bob.send("join " + *field(*code, "code"));
  EXPECT_EQ(field(started(ada), "you"), "first");
  EXPECT_EQ(field(started(bob), "you"), "second");
  // First legal moves: a1 a2 a3 b1 b2 b3 c1 — X wins on the diagonal a3-b2-c1.
  Seat x(ada, "tictactoe");
  Seat o(bob, "tictactoe");
  while (x.play_one() && o.play_one()) {
  }
  if (x.ended.empty()) x.play_one();
  if (o.ended.empty()) o.play_one();
  EXPECT_EQ(field(x.ended, "result"), "first-wins");
  EXPECT_EQ(field(x.ended, "you"), "won");
  EXPECT_EQ(field(o.ended, "you"), "lost");
  EXPECT_EQ(field(o.ended, "line"), "a3,b2,c1");
}

TEST_F(ClientTest, TwoClientsSeekThenTakebackAndDraw) {
  ServerProcess server(":memory:");
  ClientProcess ada(server.url(), "ada", config("ada"));
  ClientProcess bob(server.url(), "bob", config("bob"));
  ada.send("seek connect4 time 2+1");
  ASSERT_TRUE(ada.expect("seeking"));
  bob.send("seek connect4 time 2+1");
  const std::string sa = started(ada);
  const std::string sb = started(bob);
  EXPECT_EQ(field(sa, "match"), field(sb, "match"));
  EXPECT_EQ(field(sa, "kind"), "seek");
  ClientProcess& first = field(sa, "you") == "first" ? ada : bob;
  ClientProcess& second = &first == &ada ? bob : ada;

  first.send("4");
  ASSERT_TRUE(second.expect("move "));
  second.send("3");  // both sides move: the draw below is not an abort
  ASSERT_TRUE(first.expect_if([](const std::string& l) {
    return starts_with(l, "move ") && field(l, "side") == "second";
  }));
  first.send("undo");
  auto asked = second.expect("takeback-requested ");
  ASSERT_TRUE(asked) << second.transcript();
  EXPECT_EQ(field(*asked, "by"), "first");
  second.send("undo");  // accepts
  auto done = first.expect("takeback-done ");
  ASSERT_TRUE(done) << first.transcript();
  EXPECT_EQ(field(*done, "moves"), "-");

  first.send("draw");
  ASSERT_TRUE(second.expect("draw-offered "));
  second.send("decline");
  ASSERT_TRUE(first.expect("draw-declined "));
  first.send("draw");
  second.send("wait offer");
  second.send("draw");  // accepts
  auto ended = first.expect("ended ");
  ASSERT_TRUE(ended) << first.transcript() << second.transcript();
  EXPECT_EQ(field(*ended, "result"), "draw");
  EXPECT_EQ(field(*ended, "reason"), "agreement");
  EXPECT_EQ(field(*ended, "you"), "drew");
}

TEST_F(ClientTest, ListAndWatchALiveMatch) {
  ServerProcess server(":memory:");
  ClientProcess ada(server.url(), "ada", config("ada"));
  ClientProcess eve(server.url(), "eve", config("eve"));
  ada.send("bot tictactoe beginner first");
  const std::string match = *field(started(ada), "match");
  eve.send("list");
  auto count = eve.expect("matches ");
  ASSERT_TRUE(count);
  EXPECT_EQ(field(*count, "count"), "1");
  auto listed = eve.expect("match ");
  ASSERT_TRUE(listed);
  EXPECT_EQ(field(*listed, "id"), match);
  eve.send("watch 1");
  auto state = eve.expect("state ");
  ASSERT_TRUE(state) << eve.transcript();
  EXPECT_EQ(field(*state, "match"), match);
  EXPECT_EQ(field(*state, "you"), "-");
  ada.send("b2");
  auto seen = eve.expect("move ");
  ASSERT_TRUE(seen) << eve.transcript();
  EXPECT_EQ(field(*seen, "move"), "b2");
  ada.send("resign");
  auto ended = eve.expect("ended ");
  ASSERT_TRUE(ended);
  EXPECT_EQ(field(*ended, "you"), "-");
}

// A one-second clock: ada moves once, the bot replies, then ada moves no
// more: the server's flag falls and the client reports it; the clocks it
// printed count down. (Before both sides moved it would be an abort.)
TEST_F(ClientTest, TheFlagFallsWhenTheClockRunsOut) {
  ServerProcess server(":memory:");
  ClientProcess ada(server.url(), "ada", config("ada"));
  ada.send("bot tictactoe beginner first time 1s+0");
  ada.send("b2");
  ada.send("wait turn");
  ada.send("wait end");
  ada.send("quit");
  const std::string s = started(ada);
  EXPECT_EQ(field(s, "time"), "0.0166667+0");
  auto ended = ada.expect("ended ", 10s);
  ASSERT_TRUE(ended) << ada.transcript();
  EXPECT_EQ(field(*ended, "reason"), "timeout");
  EXPECT_EQ(field(*ended, "you"), "lost");
  EXPECT_EQ(ada.wait_exit(), 0);
}

TEST_F(ClientTest, WatchesABotMatchToTheEnd) {
  ServerProcess server(":memory:");
  ClientProcess eve(server.url(), "eve", config("eve"));
  eve.send("botmatch connect4 beginner easy");
  eve.send("wait end");
  eve.send("board");
  eve.send("quit");
  auto state = eve.expect_if(
      [](const std::string& l) { return starts_with(l, "state ") || starts_with(l, "started "); });
  ASSERT_TRUE(state) << eve.transcript();
  EXPECT_EQ(field(*state, "you"), "-");
  auto ended = eve.expect("ended ", 30s);
  ASSERT_TRUE(ended) << eve.transcript();
  EXPECT_EQ(field(*ended, "you"), "-");
  EXPECT_TRUE(eve.expect("board 1 "));
  EXPECT_EQ(eve.wait_exit(), 0);
}

// The server stops (bye, close 1001) and comes back on the same port and
// store: the client says so, reconnects with backoff and resumes the match.
TEST_F(ClientTest, ReconnectsAndResumesAfterTheServerRestarts) {
  ServerProcess server((dir_.path() / "store.db").string());
  ClientProcess ada(server.url(), "ada", config("ada"));
  ada.send("bot tictactoe beginner first");
  const std::string match = *field(started(ada), "match");
  Seat seat(ada, "tictactoe");
  ASSERT_TRUE(seat.play_one());  // our first move
  ASSERT_TRUE(ada.expect_if([](const std::string& l) {
    return starts_with(l, "turn ") && l.find("you=yes") != std::string::npos;
  }));
  // The opponent's reply is in; now the server goes away.
  seat.game = Game(seat.game.variant());  // the resumed state rebuilds it
  server.stop();
  auto lost = ada.expect_if([](const std::string& l) {
    return starts_with(l, "disconnected ") || starts_with(l, "bye ");
  });
  ASSERT_TRUE(lost) << ada.transcript();
  ASSERT_TRUE(ada.expect("reconnecting "));
  server.restart();
  auto welcome = ada.expect("welcome ", 20s);
  ASSERT_TRUE(welcome) << ada.transcript();
  EXPECT_EQ(field(*welcome, "resumed"), "yes");
  EXPECT_EQ(field(*welcome, "matches"), "1");
  // The state carries the two moves made before; play on to the end.
  auto state = ada.expect("state ");
  ASSERT_TRUE(state) << ada.transcript();
  EXPECT_EQ(field(*state, "match"), match);
  EXPECT_EQ(field(*state, "ply"), "2");
  const std::string moves = *field(*state, "moves");
  for (std::size_t start = 0; start < moves.size();) {
    auto comma = moves.find(',', start);
    if (comma == std::string::npos) comma = moves.size();
    ASSERT_TRUE(seat.game.play(moves.substr(start, comma - start)).has_value());
    start = comma + 1;
  }
  // The resumed client announces the turn after the state: it is ours.
  auto turn = ada.expect("turn ");
  ASSERT_TRUE(turn);
  EXPECT_EQ(field(*turn, "you"), "yes");
  ada.send(format_move(seat.game.variant(), seat.game.legal_moves().front()));
  seat.play_out();
  EXPECT_FALSE(seat.ended.empty()) << ada.transcript();
  EXPECT_EQ(field(seat.ended, "match"), match);
}

// The profile keeps the token: a client started again is the same player,
// back in the match it left.
TEST_F(ClientTest, ResumesTheMatchWhenStartedAgain) {
  ServerProcess server(":memory:");
  std::string match;
  std::string player;
  {
    ClientProcess ada(server.url(), "ada", config("ada"));
    auto welcome = ada.expect("welcome ");
    ASSERT_TRUE(welcome);
    player = *field(*welcome, "player");
    ada.send("bot connect4 beginner first");
    match = *field(started(ada), "match");
    ada.send("4");
    ASSERT_TRUE(ada.expect("move "));
    ada.kill_now();
  }
  ClientProcess again(server.url(), "ada", config("ada"));
  auto welcome = again.expect("welcome ");
  ASSERT_TRUE(welcome) << again.transcript();
  EXPECT_EQ(field(*welcome, "player"), player);
  EXPECT_EQ(field(*welcome, "resumed"), "yes");
  auto state = again.expect("state ");
  ASSERT_TRUE(state) << again.transcript();
  EXPECT_EQ(field(*state, "match"), match);
  EXPECT_EQ(field(*state, "you"), "first");
  EXPECT_EQ(field(*state, "moves").value_or("").substr(0, 1), "4");
}

// The open seeks from the console: ada seeks a casual game, bob lists the
// seeks and accepts hers, a watcher is counted in the players' view, and a
// seek taken already is refused with its code.
TEST_F(ClientTest, SeeksListedAndAcceptedAndWatchersCounted) {
  ServerProcess server(":memory:");
  ClientProcess ada(server.url(), "ada", config("ada"));
  ClientProcess bob(server.url(), "bob", config("bob"));
  ada.send("seek tictactoe casual");
  ASSERT_TRUE(ada.expect("seeking"));
  bob.send("seeks");
  auto head = bob.expect("seeks ");
  ASSERT_TRUE(head) << bob.transcript();
  EXPECT_EQ(field(*head, "count"), "1");
  EXPECT_EQ(field(*head, "online"), "2");
  EXPECT_EQ(field(*head, "games"), "0");
  auto seek = bob.expect("seek n=");
  ASSERT_TRUE(seek) << bob.transcript();
  EXPECT_EQ(field(*seek, "n"), "1");
  EXPECT_EQ(field(*seek, "variant"), "tictactoe");
  EXPECT_EQ(field(*seek, "time"), "untimed");
  EXPECT_EQ(field(*seek, "rated"), "no");
  EXPECT_EQ(field(*seek, "rating"), "1500");
  EXPECT_EQ(field(*seek, "mine"), "no");
  bob.send("accept 1");
  const std::string sa = started(ada);
  const std::string sb = started(bob);
  EXPECT_EQ(field(sa, "match"), field(sb, "match"));
  EXPECT_EQ(field(sa, "kind"), "seek");
  EXPECT_EQ(field(sa, "rated"), "no");
  EXPECT_EQ(field(sa, "you"), "first");  // the seeker plays first

  ClientProcess eve(server.url(), "eve", config("eve"));
  eve.send("watch " + field(sa, "match").value_or(""));
  ASSERT_TRUE(eve.expect("state ")) << eve.transcript();
  auto count = ada.expect("spectators ");
  ASSERT_TRUE(count) << ada.transcript();
  EXPECT_EQ(field(*count, "count"), "1");

  bob.send("accept 1");
  auto gone = bob.expect("error ");
  ASSERT_TRUE(gone) << bob.transcript();
  EXPECT_EQ(field(*gone, "code"), "UNKNOWN_SEEK");
}

}  // namespace
}  // namespace inarow::client::testing
