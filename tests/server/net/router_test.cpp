// The router without sockets: fake connections, an in-memory store behind a
// real StoreWriter, and an io_context run by the test. What each kind of
// message is routed to, and the fast route of a seated player's commands.
#include "inarow/server/router.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <functional>

#include "inarow/server/memory_store.h"
#include "inarow/testing/fake_connection.h"
#include "inarow/testing/messages.h"
#include "inarow/testing/run_until.h"

namespace inarow::server {
namespace {

using namespace std::chrono_literals;
using inarow::testing::FakeConnection;
using inarow::testing::hello_message;
using inarow::testing::move_message;
namespace asio = boost::asio;

class RouterTest : public ::testing::Test {
 protected:
  RouterTest() {
    config_.matchmaker_tick = 20ms;
    config_.bot_seed = 3;
  }
  ~RouterTest() override {
    router_.reset();
    writer_.flush();
    bot_workers_.join();
  }

  bool run_until(const std::function<bool()>& done, std::chrono::milliseconds timeout = 5s) {
    return inarow::testing::run_until(ioc_, done, timeout);
  }

  // Send and wait for the answer naming this request.
  v1::ServerMessage request(const std::shared_ptr<FakeConnection>& from, v1::ClientMessage m) {
    m.set_request_id(++request_id_);
    const auto id = request_id_;
    router_->receive(from, std::move(m));
    std::optional<v1::ServerMessage> answer;
    EXPECT_TRUE(run_until([&] { return (answer = from->answer(id)).has_value(); }))
        << "no answer to request " << id;
    return answer.value_or(v1::ServerMessage{});
  }
  v1::Welcome hello(const std::shared_ptr<FakeConnection>& c, const std::string& name) {
    auto w = request(c, hello_message(name));
    EXPECT_TRUE(w.has_welcome()) << w.DebugString();
    return w.welcome();
  }
  v1::ServerMessage move(const std::shared_ptr<FakeConnection>& c, const std::string& match,
                         const std::string& cell) {
    return request(c, move_message(match, cell));
  }
  // Two players paired by seeking: the match id.
  std::string pair(const std::shared_ptr<FakeConnection>& a,
                   const std::shared_ptr<FakeConnection>& b) {
    hello(a, "alice");
    hello(b, "bob");
    v1::ClientMessage seek;
    seek.mutable_seek()->set_variant("tictactoe");
    EXPECT_TRUE(request(a, seek).has_ack());
    EXPECT_TRUE(request(b, seek).has_ack());
    EXPECT_TRUE(run_until([&] { return !a->events().empty() && !b->events().empty(); }));
    return a->events().front().match_id();
  }

  ServerConfig config_;
  Metrics metrics_;
  MemoryStore store_;
  StoreWriter writer_{store_};
  asio::io_context ioc_;
  asio::thread_pool bot_workers_{1};
  std::unique_ptr<Router> router_ =
      std::make_unique<Router>(ioc_, bot_workers_, config_, store_, writer_, metrics_);
  std::shared_ptr<FakeConnection> a_ = std::make_shared<FakeConnection>();
  std::shared_ptr<FakeConnection> b_ = std::make_shared<FakeConnection>();
  std::uint64_t request_id_ = 0;
};

TEST_F(RouterTest, HelloFirstThenOnlyOnce) {
  v1::ClientMessage ping;
  ping.mutable_ping();
  EXPECT_EQ(request(a_, ping).error().code(), v1::ERROR_HELLO_REQUIRED);
  const auto w = hello(a_, "ada");
  EXPECT_EQ(w.name(), "ada");
  EXPECT_FALSE(w.token().empty());
  v1::ClientMessage again;
  again.mutable_hello()->set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
  EXPECT_EQ(request(a_, again).error().code(), v1::ERROR_ALREADY_GREETED);
  EXPECT_TRUE(request(a_, ping).has_pong());
  // The new player was stored before it heard of itself.
  const auto stored = store_.find_player(w.player_id());
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->name, "ada");
}

TEST_F(RouterTest, EveryMatchCommandGoesToItsMatch) {
  const std::string match = pair(a_, b_);
  EXPECT_TRUE(move(a_, match, "b2").has_ack());
  EXPECT_EQ(move(a_, match, "a1").error().code(), v1::ERROR_NOT_YOUR_TURN);
  v1::ClientMessage offer;
  offer.mutable_offer_draw()->set_match_id(match);
  EXPECT_TRUE(request(b_, offer).has_ack());
  v1::ClientMessage answer;
  answer.mutable_answer_draw()->set_match_id(match);
  answer.mutable_answer_draw()->set_accept(false);
  EXPECT_TRUE(request(a_, answer).has_ack());
  v1::ClientMessage takeback;
  takeback.mutable_request_takeback()->set_match_id(match);
  EXPECT_TRUE(request(a_, takeback).has_ack());
  v1::ClientMessage answer_takeback;
  answer_takeback.mutable_answer_takeback()->set_match_id(match);
  answer_takeback.mutable_answer_takeback()->set_accept(true);
  EXPECT_TRUE(request(b_, answer_takeback).has_ack());
  v1::ClientMessage resign;
  resign.mutable_resign()->set_match_id(match);
  EXPECT_TRUE(request(b_, resign).has_ack());
  ASSERT_TRUE(run_until([&] { return !a_->events().empty() && a_->events().back().has_ended(); }));
  EXPECT_EQ(a_->events().back().ended().reason(), v1::END_REASON_RESIGNATION);
}

TEST_F(RouterTest, CommandsForUnknownMatchesOrFromSpectatorsAreRefused) {
  const std::string match = pair(a_, b_);
  auto c = std::make_shared<FakeConnection>();
  hello(c, "carol");
  const auto unknown = move(c, "m-nothing", "a1");
  EXPECT_EQ(unknown.error().code(), v1::ERROR_UNKNOWN_MATCH);
  EXPECT_EQ(unknown.error().match_id(), "m-nothing");
  const auto not_seated = move(c, match, "a1");
  EXPECT_EQ(not_seated.error().code(), v1::ERROR_NOT_SEATED);
  EXPECT_EQ(not_seated.error().match_id(), match);
  EXPECT_EQ(a_->events().size(), 1u);  // only the start
}

TEST_F(RouterTest, LobbyRequestsAreAnswered) {
  hello(a_, "ada");
  v1::ClientMessage bad;
  bad.mutable_play_bot()->set_variant("chess");
  EXPECT_EQ(request(a_, bad).error().code(), v1::ERROR_UNKNOWN_VARIANT);
  v1::ClientMessage cancel;
  cancel.mutable_cancel_seek();
  EXPECT_EQ(request(a_, cancel).error().code(), v1::ERROR_BAD_REQUEST);
  v1::ClientMessage create;
  create.mutable_create_private()->set_variant("connect4");
  const auto code = request(a_, create);
  ASSERT_TRUE(code.has_ack());
  EXPECT_EQ(code.ack().code().size(), 6u);
  v1::ClientMessage join;
  join.mutable_join_private()->set_code(code.ack().code());
  EXPECT_EQ(request(a_, join).error().code(), v1::ERROR_BAD_REQUEST);  // your own game
  hello(b_, "bob");
  const auto joined = request(b_, join);
  ASSERT_TRUE(joined.has_ack());
  v1::ClientMessage list;
  list.mutable_list_matches();
  const auto listed = request(a_, list);
  ASSERT_TRUE(listed.has_match_list());
  EXPECT_EQ(listed.match_list().matches_size(), 0);  // private games are not listed
  EXPECT_EQ(listed.match_list().total(), 0u);
  v1::ClientMessage play;
  play.mutable_play_bot()->set_variant("connect4");
  play.mutable_play_bot()->set_level("easy");
  const auto bot_game = request(a_, play);
  ASSERT_TRUE(bot_game.has_ack());
  const auto relisted = request(a_, list);
  ASSERT_EQ(relisted.match_list().matches_size(), 1);
  EXPECT_EQ(relisted.match_list().matches(0).match_id(), bot_game.ack().match_id());
  EXPECT_EQ(relisted.match_list().matches(0).variant(), "connect4");
}

TEST_F(RouterTest, ShutdownSaysGoodbyeAndRefusesWhatFollows) {
  hello(a_, "ada");
  router_->shutdown();
  ASSERT_TRUE(run_until([&] { return a_->closed().has_value(); }));
  EXPECT_EQ(*a_->closed(), CloseKind::going_away);
  bool bye = false;
  for (const auto& m : a_->received())
    bye = bye || m.has_bye();
  EXPECT_TRUE(bye);
  v1::ClientMessage ping;
  ping.mutable_ping();
  EXPECT_EQ(request(a_, ping).error().code(), v1::ERROR_SHUTTING_DOWN);
}

}  // namespace
}  // namespace inarow::server
