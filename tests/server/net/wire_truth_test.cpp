// What the wire says, over real sockets: error messages that show what a
// client sent are valid UTF-8 in both frame forms, names are normalised or
// refused, `started` tells each player its seat, wide gravity boards take
// column numbers, and welcome lists only live matches.
#include <gtest/gtest.h>

#include <string>

#include "inarow/testing/messages.h"
#include "inarow/testing/test_server.h"
#include "inarow/testing/ws_client.h"

namespace inarow::testing {
namespace {

// A person playing first against a bot, the started event read.
struct BotGame {
  BotGame(std::uint16_t port, const std::string& variant, bool text = false) : c(port, text) {
    c.hello("ada");
    auto ack = c.play_bot(variant, "beginner", v1::SIDE_FIRST);
    EXPECT_TRUE(ack.has_ack()) << ack.DebugString();
    match = ack.ack().match_id();
    started = c.next_event();
    EXPECT_TRUE(started.has_started()) << started.DebugString();
  }
  WsClient c;
  std::string match;
  v1::MatchEvent started;
};

// ---------------------------------------------------------------- item 6

class EchoedInput : public ::testing::TestWithParam<bool> {};  // true: JSON text frames

TEST_P(EchoedInput, NotationErrorsShowWhatWasSentAsValidText) {
  TestServer server;
  BotGame g(server.port(), "tictactoe", GetParam());
  // The answer parsed (protobuf refuses a string that is not UTF-8; a JSON
  // reply cut short does not parse), and says exactly this.
  expect_error(g.c.move(g.match,
                        "\xC3\xA9"
                        "1"),
               v1::ERROR_ILLEGAL_MOVE, "expected a column letter, found '\xC3\xA9'");
  expect_error(g.c.move(g.match,
                        "\x07"
                        "1"),
               v1::ERROR_ILLEGAL_MOVE, "expected a column letter, found '\\u0007'");
  expect_error(g.c.move(g.match,
                        "\xE2\x80\xAE"
                        "a1"),
               v1::ERROR_ILLEGAL_MOVE, "expected a column letter, found '\\u202e'");
  expect_error(g.c.move(g.match, "a\nb"), v1::ERROR_ILLEGAL_MOVE,
               "expected a row number, found '\\n'");
  // What follows a move is shown up to 32 bytes, then an ellipsis.
  expect_error(g.c.move(g.match, "a1" + std::string(100, 'x')), v1::ERROR_ILLEGAL_MOVE,
               "unexpected '" + std::string(32, 'x') + "\xE2\x80\xA6' after the move");
  expect_error(g.c.move(g.match, "b2\"\\"), v1::ERROR_ILLEGAL_MOVE,
               "unexpected '\"\\\\' after the move");
  // A variant and a level name are shown the same way.
  expect_error(g.c.play_bot("mnk:\xC3\xA9", "beginner"), v1::ERROR_UNKNOWN_VARIANT,
               "expected a number in 'mnk:\xC3\xA9'");
  expect_error(g.c.play_bot("tictactoe", "hard\x1b[2J"), v1::ERROR_UNKNOWN_LEVEL,
               "no bot level named 'hard\\u001b[2J'");
  // Nothing changed: the first legal move is still move 1.
  expect_ack(g.c.move(g.match, "b2"));
  auto made = g.c.next_event();
  EXPECT_EQ(made.move_made().ply(), 1);
}

INSTANTIATE_TEST_SUITE_P(Wire, EchoedInput, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Json" : "Binary"; });

// Bytes that are not UTF-8 never reach a message's checks: protobuf refuses
// a string field that is not UTF-8, so the frame is malformed; the answer
// (request id 0: the frame was not read) parses. In a JSON text frame
// WebSocket itself forbids them.
TEST(EchoedBytes, RawInvalidBytesAreMalformedFrames) {
  TestServer server;
  BotGame g(server.port(), "tictactoe");
  for (const std::string move : {"\xFF"
                                 "1",
                                 "\xC3"
                                 "1",
                                 "a1\xC3\x28"}) {
    g.c.send(move_message(g.match, move));
    auto reply = g.c.next();
    ASSERT_TRUE(reply) << "the reply did not parse";
    expect_error(*reply, v1::ERROR_MALFORMED, "not a ClientMessage in protobuf");
    EXPECT_EQ(reply->request_id(), 0u);
  }
  // Nothing changed: the first legal move is still move 1.
  expect_ack(g.c.move(g.match, "b2"));
  EXPECT_EQ(g.c.next_event().move_made().ply(), 1);
}

// ---------------------------------------------------------------- item 7

struct NameCase {
  const char* sent;
  const char* error;  // null: welcomed as `kept`
  const char* kept;
};

class Names : public ::testing::TestWithParam<NameCase> {};

TEST_P(Names, AreNormalisedOrRefused) {
  TestServer server;
  const NameCase& n = GetParam();
  WsClient c(server.port());
  auto reply = c.request(hello_message(n.sent));
  if (n.error) {
    expect_error(reply, v1::ERROR_BAD_REQUEST, n.error);
    // Refused, the connection still has to say hello.
    v1::ClientMessage list;
    list.mutable_list_matches();
    ASSERT_TRUE(c.request(list).has_error());
    return;
  }
  ASSERT_TRUE(reply.has_welcome()) << reply.DebugString();
  EXPECT_EQ(reply.welcome().name(), n.kept);
}

INSTANTIATE_TEST_SUITE_P(
    Wire, Names,
    ::testing::Values(
        NameCase{"ada", nullptr, "ada"},
        NameCase{"  ada \t",
                 "names cannot hold control or formatting characters (U+0009 at byte 6)", nullptr},
        NameCase{"  ada   lovelace  ", nullptr, "ada lovelace"},
        NameCase{"\xE3\x80\x80"
                 "ada\xC2\xA0\xC2\xA0"
                 "b",
                 nullptr, "ada b"},  // ideographic and no-break spaces
        NameCase{"Zo\xC3\xAB", nullptr, "Zo\xC3\xAB"},
        NameCase{"", "a name needs a visible character", nullptr},
        NameCase{"   ", "a name needs a visible character", nullptr},
        NameCase{"a\nb", "names cannot hold control or formatting characters (U+000A at byte 1)",
                 nullptr},
        NameCase{"a\x1b[31m",
                 "names cannot hold control or formatting characters (U+001B at byte 1)", nullptr},
        NameCase{"ab\x7f", "names cannot hold control or formatting characters (U+007F at byte 2)",
                 nullptr},
        NameCase{"a\xE2\x80\x8B"
                 "b",
                 "names cannot hold control or formatting characters (U+200B at byte 1)", nullptr},
        NameCase{"evil\xE2\x80\xAE"
                 "gnp.exe",
                 "names cannot hold control or formatting characters (U+202E at byte 4)", nullptr},
        NameCase{"medium bot", "names ending in \"bot\" are kept for the bots", nullptr},
        NameCase{"  MEDIUM   Bot ", "names ending in \"bot\" are kept for the bots", nullptr},
        NameCase{"random-bot", "names ending in \"bot\" are kept for the bots", nullptr},
        NameCase{"bot", "names ending in \"bot\" are kept for the bots", nullptr},
        NameCase{"abbot", nullptr, "abbot"}, NameCase{"robots", nullptr, "robots"},
        NameCase{"0123456789012345678901234567890123", "names are at most 32 bytes", nullptr},
        NameCase{"   01234567890123456789012345678901   ", nullptr,
                 "01234567890123456789012345678901"}),
    // Stable test names (the default prints the case's bytes, addresses included).
    [](const auto& p) { return "Case" + std::to_string(p.index); });

// ---------------------------------------------------------------- item 8

TEST(Started, TellsEachPlayerItsSeatAndSpectatorsNone) {
  TestServer server;
  WsClient a(server.port()), b(server.port()), fan(server.port());
  a.hello("alice");
  b.hello("bob");
  fan.hello("fan");
  v1::ClientMessage create;
  create.mutable_create_private()->set_variant("tictactoe");
  create.mutable_create_private()->set_side(v1::SIDE_SECOND);
  auto created = a.request(create);
  ASSERT_TRUE(created.has_ack());
  auto joined = b.request(join_private_message(created.ack().code()));
  ASSERT_TRUE(joined.has_ack()) << joined.DebugString();
  const auto sa = a.next_event(), sb = b.next_event();
  ASSERT_TRUE(sa.has_started() && sb.has_started());
  EXPECT_EQ(sa.started().state().your_side(), v1::SIDE_SECOND);  // alice asked for second
  EXPECT_EQ(sb.started().state().your_side(), v1::SIDE_FIRST);
  EXPECT_EQ(sa.started().state().second().id(), a.player_id());

  // A spectator's view has no seat (a private game is watched with its code).
  const auto seen = fan.request(watch_message(sa.match_id(), 0, created.ack().code()));
  ASSERT_TRUE(seen.has_match_state()) << seen.DebugString();
  EXPECT_EQ(seen.match_state().your_side(), v1::SIDE_UNSPECIFIED);
  // A player resuming from the start gets its seat again.
  WsClient back(server.port());
  back.resume(a.token(), {{sa.match_id(), 0}});
  const auto again = back.next_event();
  ASSERT_TRUE(again.has_started());
  EXPECT_EQ(again.started().state().your_side(), v1::SIDE_SECOND);
}

TEST(WideGravity, ColumnsAreNumbered) {
  TestServer server;
  BotGame g(server.port(), "mnk:12,6,4,gravity");
  EXPECT_EQ(g.started.started().state().your_side(), v1::SIDE_FIRST);
  expect_error(g.c.move(g.match, "13"), v1::ERROR_ILLEGAL_MOVE,
               "column 13 is off the board (1-12)");
  expect_error(g.c.move(g.match, "0"), v1::ERROR_ILLEGAL_MOVE, "column 0 is off the board (1-12)");
  expect_error(g.c.move(g.match, "*"), v1::ERROR_ILLEGAL_MOVE,
               "expected a column number 1-12, found '*'");
  expect_ack(g.c.move(g.match, "12"));
  auto mine = g.c.next_event();
  ASSERT_TRUE(mine.has_move_made()) << mine.DebugString();
  EXPECT_EQ(mine.move_made().move(), "12");
  auto reply = g.c.next_event(30s);
  ASSERT_TRUE(reply.has_move_made()) << reply.DebugString();
  const int bot_column = std::stoi(reply.move_made().move());  // a number, not a letter
  EXPECT_GE(bot_column, 1);
  EXPECT_LE(bot_column, 12);
  // Column letters, the first notation, are still read: "j" is column 10.
  expect_ack(g.c.move(g.match, "j"));
  auto lettered = g.c.next_event();
  EXPECT_EQ(lettered.move_made().move(), "10");

  // Boards of up to nine columns keep their digits.
  BotGame c4(server.port(), "connect4");
  expect_ack(c4.c.move(c4.match, "4"));
  EXPECT_EQ(c4.c.next_event().move_made().move(), "4");
  EXPECT_EQ(c4.c.next_event(30s).move_made().ply(), 2);  // the bot's reply
  expect_error(c4.c.move(c4.match, "10"), v1::ERROR_ILLEGAL_MOVE, "unexpected '0' after the move");
}

TEST(Welcome, ListsOnlyLiveMatches) {
  TestServer server;
  WsClient c(server.port());
  c.hello("cy");
  auto first = c.play_bot("tictactoe", "beginner");
  ASSERT_TRUE(first.has_ack());
  ASSERT_TRUE(c.next_event().has_started());
  auto second = c.play_bot("connect4", "beginner");
  ASSERT_TRUE(second.has_ack());
  ASSERT_TRUE(c.next_event().has_started());
  expect_ack(c.request(resign_message(first.ack().match_id())));

  // At once (the ack came after the end was stored and told), a new
  // connection of the same player is welcomed with the live match only;
  // the ended one is named apart, and its end follows.
  WsClient back(server.port());
  auto w = back.resume(c.token(), {{first.ack().match_id(), 1}});
  ASSERT_EQ(w.matches_size(), 1);
  EXPECT_EQ(w.matches(0), second.ack().match_id());
  ASSERT_EQ(w.ended_matches_size(), 1);
  EXPECT_EQ(w.ended_matches(0), first.ack().match_id());
  auto end = back.next_until([&](const v1::ServerMessage& m) {
    return m.has_event() && m.event().match_id() == first.ack().match_id() && m.event().has_ended();
  });
  ASSERT_TRUE(end);
  EXPECT_EQ(end->event().ended().reason(), v1::END_REASON_RESIGNATION);
}

}  // namespace
}  // namespace inarow::testing
