// The standard rule (gomoku-standard: exactly five wins) over real sockets:
// between people a six plays on and a five ends the match with its line;
// against a bot the variant is taken and the bot answers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "inarow/testing/messages.h"
#include "inarow/testing/test_server.h"
#include "inarow/testing/ws_client.h"

namespace inarow::testing {
namespace {

using Kind = v1::MatchEvent::KindCase;

TEST(StandardRule, ASixPlaysOnAndAFiveWinsBetweenPeople) {
  TestServer server;
  WsClient a(server.port()), b(server.port());
  a.hello("ann");
  b.hello("bob");
  const auto created = a.request(create_private_message("gomoku-standard"));
  ASSERT_TRUE(created.has_ack()) << created.DebugString();
  const std::string id = expect_match_ack(b.request(join_private_message(created.ack().code())));
  const auto started = wait_event(a, id, Kind::kStarted);
  EXPECT_EQ(started.started().state().variant(), "gomoku-standard");
  wait_event(b, id, Kind::kStarted);
  ASSERT_EQ(started.started().state().your_side(), v1::SIDE_FIRST);

  // ann: a1 b1 c1 e1 f1, then d1 (a1..f1, six: no win), then a2..a5
  // (a1..a5, exactly five). bob: quiet stones far away.
  const std::vector<std::string> first = {"a1", "b1", "c1", "e1", "f1",
                                          "d1", "a2", "a3", "a4", "a5"};
  const std::vector<std::string> second = {"o15", "m15", "k15", "i15", "g15",
                                           "e15", "c15", "o13", "m13"};
  for (std::size_t i = 0; i < first.size(); ++i) {
    expect_ack(a.move(id, first[i]));
    wait_event(b, id, Kind::kMoveMade);
    if (i < second.size()) {
      // The six did not end the match: bob still moves.
      expect_ack(b.move(id, second[i]));
      wait_event(a, id, Kind::kMoveMade);
    }
  }
  const auto ended = wait_event(b, id, Kind::kEnded).ended();
  EXPECT_EQ(ended.result(), v1::RESULT_FIRST_WINS);
  EXPECT_EQ(ended.reason(), v1::END_REASON_LINE);
  const std::vector<std::string> line(ended.winning_line().begin(), ended.winning_line().end());
  EXPECT_EQ(line, (std::vector<std::string>{"a1", "a2", "a3", "a4", "a5"}));
}

TEST(StandardRule, ABotPlaysIt) {
  TestServer server;
  WsClient c(server.port());
  c.hello("ann");
  const std::string id =
      expect_match_ack(c.play_bot("gomoku-standard", "easy", v1::SIDE_FIRST, 60'000, 500));
  const auto started = wait_event(c, id, Kind::kStarted);
  EXPECT_EQ(started.started().state().variant(), "gomoku-standard");
  expect_ack(c.move(id, "h8"));
  wait_event(c, id, Kind::kMoveMade);                     // ours
  const auto reply = wait_event(c, id, Kind::kMoveMade);  // the bot's
  EXPECT_EQ(reply.move_made().side(), v1::SIDE_SECOND);
  // A spelling the engine does not know is refused, typed.
  expect_error(c.play_bot("mnk:9,9,4,exact,gravity", "easy", v1::SIDE_FIRST, 60'000, 500),
               v1::ERROR_UNKNOWN_VARIANT);
}

}  // namespace
}  // namespace inarow::testing
