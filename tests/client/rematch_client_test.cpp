// The console client's `rematch` against a real inarow-server: against a bot
// the new match starts with the sides swapped; between two clients one
// offers, the other declines, then accepts an offer of its own.
#include <gtest/gtest.h>

#include "client_process.h"

namespace inarow::client::testing {
namespace {

class RematchClientTest : public ClientConfigs {};

// Two lines of these prefixes, in either order (the old match's news and
// the new match's start come from two matches: no order between them).
std::pair<std::string, std::string> expect_both(ClientProcess& c, const std::string& a,
                                                const std::string& b) {
  std::string first;
  std::string second;
  while (first.empty() || second.empty()) {
    auto line = c.expect_if([&](const std::string& l) {
      return (first.empty() && l.rfind(a, 0) == 0) || (second.empty() && l.rfind(b, 0) == 0);
    });
    if (!line) {
      ADD_FAILURE() << "no '" << a << "' and '" << b << "' lines; transcript:\n" << c.transcript();
      break;
    }
    (line->rfind(a, 0) == 0 ? first : second) = *line;
  }
  return {first, second};
}

TEST_F(RematchClientTest, AgainstABotTheRematchStartsWithTheSidesSwapped) {
  ServerProcess server(":memory:");
  ClientProcess ada(server.url(), "ada", config("ada"));
  ada.send("bot tictactoe easy first");
  const std::string first = expect_line(ada, "started ");
  EXPECT_EQ(field(first, "you"), "first");
  // Not before the end: refused by the client itself.
  ada.send("rematch");
  const std::string early = expect_line(ada, "error ");
  EXPECT_EQ(field(early, "code"), "NOT_OVER");
  ada.send("resign");
  ada.send("wait end");
  const std::string ended = expect_line(ada, "ended ");
  EXPECT_EQ(field(ended, "match"), field(first, "match"));
  ada.send("rematch");
  ada.send("wait start");
  const auto [second, told] = expect_both(ada, "started ", "rematch-started ");
  EXPECT_NE(field(second, "match"), field(first, "match"));
  EXPECT_EQ(field(second, "you"), "second");
  EXPECT_EQ(field(second, "second"), "ada");
  EXPECT_EQ(field(second, "first"), field(first, "second"));  // the same bot
  EXPECT_EQ(field(second, "variant"), "tictactoe");
  EXPECT_EQ(field(second, "kind"), "bot");
  EXPECT_EQ(field(told, "match"), field(first, "match"));
  EXPECT_EQ(field(told, "new"), field(second, "match"));
  ada.send("quit");
  EXPECT_EQ(ada.wait_exit(), 0);
}

TEST_F(RematchClientTest, BetweenPeopleAnOfferIsDeclinedThenAccepted) {
  ServerProcess server(":memory:");
  ClientProcess ada(server.url(), "ada", config("ada"));
  ClientProcess bob(server.url(), "bob", config("bob"));
  ada.send("create tictactoe first");
  auto code = ada.expect("private ");
  ASSERT_TRUE(code) << ada.transcript();
  bob.send("join " + *field(*code, "code"));
  const std::string started = expect_line(ada, "started ");
  expect_line(bob, "started ");
  const std::string old_id = *field(started, "match");
  ada.send("resign");
  expect_line(ada, "ended ");
  expect_line(bob, "ended ");

  bob.send("rematch");
  const std::string offered = expect_line(ada, "rematch-offered ");
  EXPECT_EQ(field(offered, "match"), old_id);
  EXPECT_EQ(field(offered, "by"), "second");
  EXPECT_EQ(field(expect_line(bob, "rematch-offered "), "by"), "second");
  ada.send("decline");
  const std::string declined = expect_line(bob, "rematch-declined ");
  EXPECT_EQ(field(declined, "by"), "first");
  EXPECT_EQ(field(declined, "lapsed"), "no");

  ada.send("rematch");
  EXPECT_EQ(field(expect_line(bob, "rematch-offered "), "by"), "first");
  bob.send("rematch");
  const std::string for_ada = expect_line(ada, "started ");
  const std::string for_bob = expect_line(bob, "started ");
  EXPECT_NE(field(for_ada, "match"), old_id);
  EXPECT_EQ(field(for_ada, "match"), field(for_bob, "match"));
  EXPECT_EQ(field(for_ada, "you"), "second");
  EXPECT_EQ(field(for_bob, "you"), "first");
  EXPECT_EQ(field(for_ada, "kind"), "private");
  ada.send("quit");
  bob.send("quit");
  EXPECT_EQ(ada.wait_exit(), 0);
  EXPECT_EQ(bob.wait_exit(), 0);
}

}  // namespace
}  // namespace inarow::client::testing
